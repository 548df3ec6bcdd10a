package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
)

type presetRequest struct {
	Label string `json:"label"`
	Model string `json:"model"`
}

// handlePresets lists the model selector's presets: GET /api/models/presets.
func (s *Server) handlePresets(w http.ResponseWriter, r *http.Request) {
	ps, err := db.ModelPresets(r.Context(), s.opts.Pool)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if ps == nil {
		ps = []db.ModelPreset{}
	}
	writeJSON(w, http.StatusOK, ps)
}

// handleCreatePreset adds a preset: POST /api/models/presets {label, model}.
func (s *Server) handleCreatePreset(w http.ResponseWriter, r *http.Request) {
	var req presetRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	req.Label, req.Model = strings.TrimSpace(req.Label), strings.TrimSpace(req.Model)
	switch {
	case req.Label == "":
		writeFieldError(w, "label", "表示名を入力してください")
		return
	case req.Model == "":
		writeFieldError(w, "model", "モデル名を入力してください")
		return
	case !s.checkModel(w, r, req.Model):
		return
	}
	p, err := db.InsertModelPreset(r.Context(), s.opts.Pool, req.Label, req.Model)
	if errors.Is(err, db.ErrPresetLabelTaken) {
		writeJSON(w, http.StatusConflict, apiError{Error: "label: 同じ表示名のプリセットがあります", Field: "label"})
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, p)
}

// handleDeletePreset removes a preset: DELETE /api/models/presets/{id}.
func (s *Server) handleDeletePreset(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	s.noContent(w, r, db.DeleteModelPreset(r.Context(), s.opts.Pool, id))
}
