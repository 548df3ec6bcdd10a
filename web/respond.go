package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
)

// maxBody bounds a JSON request body; imports get more.
const (
	maxBody       = 1 << 20
	maxImportBody = 32 << 20
)

// apiError is every error body: a short message a person can act on and,
// for bad input, the field it is about.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, apiError{Error: msg})
}

// writeFieldError answers 400 about one field of the request.
func writeFieldError(w http.ResponseWriter, field, msg string) {
	writeJSON(w, http.StatusBadRequest, apiError{Error: field + ": " + msg, Field: field})
}

// decodeJSON reads the request body into v. On failure it answers (400
// naming the field, or 415) and returns false.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any, limit int64) bool {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "Content-Type: application/json で送ってください。")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("extra data after the JSON value")
	}
	if err == nil {
		return true
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		writeFieldError(w, typeErr.Field, fmt.Sprintf("%s ではなく %s が必要です", typeErr.Value, jsonKind(typeErr.Type.Kind().String())))
	case errors.As(err, &typeErr):
		writeError(w, http.StatusBadRequest, "JSON オブジェクトを送ってください。")
	case errors.As(err, &syntaxErr):
		writeError(w, http.StatusBadRequest, fmt.Sprintf("JSON が壊れています（%d バイト目）。", syntaxErr.Offset))
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, tooLargeText(tooBig.Limit))
	case errors.As(err, &netErr) && netErr.Timeout():
		// The body came slower than ReadTimeout (or UploadTimeout) allows.
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, "送信に時間がかかりすぎたため打ち切りました。もう一度お試しください。")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		writeError(w, http.StatusBadRequest, "JSON の本文がありません。")
	default:
		writeError(w, http.StatusBadRequest, "JSON が読めません: "+err.Error())
	}
	return false
}

func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"), strings.HasPrefix(k, "float"):
		return "数値"
	case k == "string":
		return "文字列"
	case k == "bool":
		return "真偽値"
	case k == "slice":
		return "配列"
	}
	return "オブジェクト"
}

// pathID parses the {name} wildcard as a positive id; on failure it answers
// 404 (no such thing can exist) and returns false.
func pathID(w http.ResponseWriter, r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		writeError(w, http.StatusNotFound, "見つかりません。")
		return 0, false
	}
	return id, true
}

// internalError logs err once, here at the edge, and answers 500 (503 when
// the request was given up).
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the client left; nobody reads the answer
	}
	s.opts.Logger.Error("admin api", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, http.StatusInternalServerError, "サーバーでエラーが起きました。ログを確認してください。")
}

// noContent answers a write: 204, 404 for a missing row, else 500.
func (s *Server) noContent(w http.ResponseWriter, r *http.Request, err error) {
	if err == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.notFoundOr500(w, r, err)
}

// notFoundOr500 answers 404 for a missing row, else 500.
func (s *Server) notFoundOr500(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, db.ErrNotFound) {
		writeError(w, http.StatusNotFound, "見つかりません。")
		return
	}
	s.internalError(w, r, err)
}
