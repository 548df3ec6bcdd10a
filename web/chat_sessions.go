package web

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// maxHistory bounds the messages one history or export returns.
const maxHistory = 5000

// sessionJSON is a conversation in the list.
type sessionJSON struct {
	ID        int64     `json:"id"`
	Title     string    `json:"title"`
	Source    string    `json:"source"` // "web" or "discord"
	Model     string    `json:"model"`
	Space     string    `json:"space"`     // whose memory: "guild:<id>", "dm:<user id>", "web"
	ReadOnly  bool      `json:"read_only"` // Discord conversations are shown, not continued
	Live      bool      `json:"live"`      // a turn is in flight: GET /chat/sessions/{id}/live follows it
	UpdatedAt time.Time `json:"updated_at"`
	CreatedAt time.Time `json:"created_at"`
}

func toSessionJSON(s db.SessionItem, nb nameBook) sessionJSON {
	return sessionJSON{
		ID: s.ID, Title: nb.sessionTitle(s), Source: sessionSource(s), Model: s.Model, Space: s.Space,
		ReadOnly: sessionSource(s) != "web", UpdatedAt: s.UpdatedAt, CreatedAt: s.CreatedAt,
	}
}

func sessionSource(s db.SessionItem) string {
	if s.Source != "" {
		return s.Source
	}
	src, _, _ := strings.Cut(s.Key, ":")
	return src
}

// newWebKey names a new web conversation.
func newWebKey() memory.SessionKey {
	return memory.Web(strings.ToLower(rand.Text()))
}

// webSession loads the conversation {id} of the path; on failure it answers
// (404) and returns false.
func (s *Server) loadSession(w http.ResponseWriter, r *http.Request) (db.SessionItem, bool) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return db.SessionItem{}, false
	}
	sess, err := db.SessionItemByID(r.Context(), s.opts.Pool, id)
	if errors.Is(err, db.ErrNotFound) {
		writeError(w, http.StatusNotFound, "その会話はありません。")
		return db.SessionItem{}, false
	}
	if err != nil {
		s.internalError(w, r, err)
		return db.SessionItem{}, false
	}
	return sess, true
}

// handleSessions lists conversations, newest first: GET /chat/sessions.
func (s *Server) handleSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ss, err := db.ListSessions(r.Context(), s.opts.Pool, db.SessionFilter{Source: q.Get("source"), Space: q.Get("space")})
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := make([]sessionJSON, len(ss))
	live := s.lanes.live.sessions()
	nb := s.namesOf(r.Context(), sessionIDs(ss...))
	for i, sess := range ss {
		out[i] = toSessionJSON(sess, nb)
		out[i].Live = live[sess.ID]
	}
	writeJSON(w, http.StatusOK, out)
}

type createSessionRequest struct {
	Title string `json:"title"`
	Model string `json:"model"`
	Space string `json:"space"` // default: the default space
}

type idResponse struct {
	ID int64 `json:"id"`
}

// handleCreateSession starts a web conversation: POST /chat/sessions.
func (s *Server) handleCreateSession(w http.ResponseWriter, r *http.Request) {
	var req createSessionRequest
	if r.ContentLength != 0 && !decodeJSON(w, r, &req, maxBody) {
		return
	}
	space, ok := s.space(w, r, req.Space)
	if !ok {
		return
	}
	sess, err := db.CreateSession(r.Context(), s.opts.Pool, db.NewSession{Key: string(newWebKey()), Source: "web", Space: string(space),
		Title: truncate(strings.TrimSpace(req.Title), 100), Model: strings.TrimSpace(req.Model), At: s.opts.Now()})
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, idResponse{ID: sess.ID})
}

// handleDeleteSession deletes a web conversation with its messages and
// summaries: DELETE /chat/sessions/{id}. Discord ones are refused (403).
// It is gone at once; its rows are purged in the background.
func (s *Server) handleDeleteSession(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.loadSession(w, r)
	if !ok {
		return
	}
	if sessionSource(sess) != "web" {
		writeError(w, http.StatusForbidden, "Discord の会話はここでは削除できません（/forget を使ってください）。")
		return
	}
	// An answer in flight is stopped and kept first, into the conversation
	// being deleted: kept after the purge, it would make the conversation
	// anew under its key.
	s.stopTurns(r, sess.ID)
	s.noContent(w, r, db.DeleteSession(r.Context(), s.opts.Pool, sess.ID))
}

// messageJSON is one message of a history or an export.
type messageJSON struct {
	ID         int64     `json:"id,omitempty"`
	Role       string    `json:"role"`
	Content    string    `json:"content"`
	AuthorName string    `json:"author_name,omitempty"`
	Model      string    `json:"model,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	// Archived messages were summarised: shown in the history, no longer
	// sent to the model.
	Archived bool `json:"archived"`
	// Images are what is kept of the pictures sent with the message (the
	// history only; never the bytes).
	Images []db.MessageImage `json:"images,omitempty"`
	// Tools, Sources and Stopped are what the answer's turn did.
	Tools   []toolEvent  `json:"tools,omitempty"`
	Sources []sourceJSON `json:"sources,omitempty"`
	Stopped bool         `json:"stopped,omitempty"`
	// Branch is set on the first message of a point where the conversation
	// has versions (再生成, 編集): which one is shown, of how many.
	Branch *versionsJSON `json:"branch,omitempty"`
}

func toMessagesJSON(ms []db.Message, withIDs bool, acts map[int64]db.Activity) []messageJSON {
	out := make([]messageJSON, len(ms))
	for i, m := range ms {
		out[i] = messageJSON{Role: m.Role, Content: m.Content, AuthorName: m.AuthorName, Model: m.Model,
			CreatedAt: m.CreatedAt, Archived: m.ArchivedAt != nil}
		if withIDs {
			out[i].ID = m.ID
		}
		if a, ok := acts[m.ID]; ok {
			out[i].Tools, out[i].Sources, out[i].Stopped = toolsJSON(a.Tools), toSourcesJSON(a.Sources), a.Stopped
		}
	}
	return out
}

// toolsJSON are the kept tool calls as the page's tool events, done.
func toolsJSON(ts []db.ToolCall) []toolEvent {
	out := make([]toolEvent, len(ts))
	for i, t := range ts {
		out[i] = toolEvent{ID: fmt.Sprintf("tool-%d", i+1), Name: t.Name, Label: chat.ToolLabel(t.Name), Detail: t.Detail,
			Status: "done", Result: t.Result, Error: t.Error, DurationMS: t.DurationMS}
	}
	return out
}

// activities loads what the answers among ms did.
func (s *Server) activities(r *http.Request, ms []db.Message) (map[int64]db.Activity, error) {
	ids := make([]int64, 0, len(ms))
	for _, m := range ms {
		if m.Role == db.RoleAssistant {
			ids = append(ids, m.ID)
		}
	}
	return db.MessageActivities(r.Context(), s.opts.Pool, ids)
}

// handleMessages returns a conversation's newest messages, archived ones
// included and marked, a page at a time: GET
// /chat/sessions/{id}/messages?before=&limit= (before: a message id;
// limit: default and at most 5,000). A full page says where the next one
// starts in the X-Next-Before header.
func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.loadSession(w, r)
	if !ok {
		return
	}
	before, ok := queryInt(w, r, "before", 0)
	if !ok {
		return
	}
	limit, ok := queryInt(w, r, "limit", maxHistory)
	if !ok {
		return
	}
	limit = min(limit, maxHistory)
	ms, err := db.SessionMessagesBefore(r.Context(), s.opts.Pool, sess.ID, before, int(limit))
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if len(ms) == int(limit) {
		w.Header().Set("X-Next-Before", strconv.FormatInt(ms[0].ID, 10))
	}
	acts, err := s.activities(r, ms)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := toMessagesJSON(ms, true, acts)
	if err := s.withBranches(r, sess, out, len(ms) < int(limit)); err != nil {
		s.internalError(w, r, err)
		return
	}
	ids := make([]int64, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	images, err := db.MessageImages(r.Context(), s.opts.Pool, ids)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	for i := range out {
		out[i].Images = images[out[i].ID]
	}
	writeJSON(w, http.StatusOK, out)
}

// exportJSON is the file a conversation is exported to and imported from.
type exportJSON struct {
	Format    string        `json:"format"` // exportFormat
	Title     string        `json:"title"`
	Source    string        `json:"source"`
	Model     string        `json:"model"`
	Space     string        `json:"space"`
	CreatedAt time.Time     `json:"created_at"`
	Messages  []messageJSON `json:"messages"`
}

const exportFormat = "yorozu-chat/1"

// handleExport downloads a conversation as JSON:
// GET /chat/sessions/{id}/export.
func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.loadSession(w, r)
	if !ok {
		return
	}
	ms, err := db.SessionMessages(r.Context(), s.opts.Pool, sess.ID, maxHistory)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	acts, err := s.activities(r, ms)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="yorozu-chat-%d.json"`, sess.ID))
	writeJSON(w, http.StatusOK, exportJSON{
		Format: exportFormat, Title: s.namesOf(r.Context(), sessionIDs(sess)).sessionTitle(sess), Source: sessionSource(sess), Model: sess.Model, Space: sess.Space,
		CreatedAt: sess.CreatedAt, Messages: toMessagesJSON(ms, false, acts),
	})
}

// handleImport makes a new web conversation from an export:
// POST /chat/sessions/import.
func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) {
	var in exportJSON
	if !decodeJSON(w, r, &in, maxImportBody) {
		return
	}
	if in.Format != exportFormat {
		writeFieldError(w, "format", fmt.Sprintf("%q の書き出しファイルではありません", exportFormat))
		return
	}
	ms := make([]db.ImportedMessage, len(in.Messages))
	for i, m := range in.Messages {
		switch m.Role {
		case db.RoleUser, db.RoleAssistant, db.RoleSystem:
		default:
			writeFieldError(w, fmt.Sprintf("messages[%d].role", i), "user, assistant, system のどれかにしてください")
			return
		}
		ms[i] = db.ImportedMessage{Role: m.Role, AuthorName: m.AuthorName, Content: m.Content, Model: m.Model,
			CreatedAt: m.CreatedAt, Archived: m.Archived}
	}
	title := strings.TrimSpace(in.Title)
	if title == "" {
		title = "読み込んだチャット"
	}
	space, ok := s.space(w, r, in.Space)
	if !ok {
		return
	}
	var sess db.SessionItem
	err := pgx.BeginFunc(r.Context(), s.opts.Pool, func(q pgx.Tx) error {
		var err error
		sess, err = db.CreateSession(r.Context(), q, db.NewSession{Key: string(newWebKey()), Source: "web", Space: string(space),
			Title: truncate(title, 100), Model: in.Model, At: s.opts.Now()})
		if err != nil || len(ms) == 0 {
			return err
		}
		return db.ImportMessages(r.Context(), q, sess.ID, ms)
	})
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, idResponse{ID: sess.ID})
}

type notesLinkJSON struct {
	PageIDs []int64 `json:"page_ids"`
}

// handleSessionNotes returns the pages linked to a conversation (their
// full text is in its context): GET /chat/sessions/{id}/notes.
func (s *Server) handleSessionNotes(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.loadSession(w, r)
	if !ok {
		return
	}
	pages, err := s.opts.Deps.Memory.LinkedNotes(r.Context(), memory.SessionKey(sess.Key))
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	ids := make([]int64, len(pages))
	for i, p := range pages {
		ids[i] = p.ID
	}
	writeJSON(w, http.StatusOK, notesLinkJSON{PageIDs: ids})
}

// handlePutSessionNotes sets the pages linked to a conversation:
// PUT /chat/sessions/{id}/notes {"page_ids": [...]}.
func (s *Server) handlePutSessionNotes(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.loadSession(w, r)
	if !ok {
		return
	}
	var req notesLinkJSON
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	if req.PageIDs == nil {
		writeFieldError(w, "page_ids", "ページ ID の配列が必要です")
		return
	}
	if !s.setLinkedNotes(w, r, memory.SessionKey(sess.Key), req.PageIDs) {
		return
	}
	writeJSON(w, http.StatusOK, req)
}

// setLinkedNotes links exactly ids to key; an unknown page answers 400.
func (s *Server) setLinkedNotes(w http.ResponseWriter, r *http.Request, key memory.SessionKey, ids []int64) bool {
	err := s.opts.Deps.Memory.SetLinkedNotes(r.Context(), key, ids)
	if errors.Is(err, db.ErrNotFound) {
		writeFieldError(w, "page_ids", "存在しないページが含まれています")
		return false
	}
	if err != nil {
		s.internalError(w, r, err)
		return false
	}
	return true
}

// space returns the space a request names, or the default space when it
// names none; a malformed one answers 400 naming the field.
func (s *Server) space(w http.ResponseWriter, r *http.Request, given string) (memory.Space, bool) {
	given = strings.TrimSpace(given)
	if given != "" {
		if given != string(memory.WebSpace) && !validSpace(given) {
			writeFieldError(w, "space", "web, guild:<サーバー ID>, dm:<ユーザー ID> のどれかにしてください")
			return "", false
		}
		return memory.Space(given), true
	}
	if s.opts.Deps.Memory == nil {
		return memory.WebSpace, true
	}
	sp, err := s.opts.Deps.Memory.DefaultSpace(r.Context())
	if err != nil {
		s.internalError(w, r, err)
		return "", false
	}
	return sp, true
}

func validSpace(sp string) bool {
	kind, id, ok := strings.Cut(sp, ":")
	return ok && (kind == "guild" || kind == "dm") && id != "" && !strings.ContainsAny(id, "/\\:")
}

type renameRequest struct {
	Title string `json:"title"`
}

// handleRenameSession renames a web conversation:
// PATCH /chat/sessions/{id} {"title": …} (at most 100 characters).
func (s *Server) handleRenameSession(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.loadSession(w, r)
	if !ok {
		return
	}
	var req renameRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	title := strings.Join(strings.Fields(req.Title), " ")
	if title == "" {
		writeFieldError(w, "title", "名前を入力してください")
		return
	}
	if sessionSource(sess) != "web" {
		writeError(w, http.StatusForbidden, "Discord の会話の名前はここでは変えられません。")
		return
	}
	err := db.RenameSession(r.Context(), s.opts.Pool, sess.ID, truncate(title, 100))
	if errors.Is(err, db.ErrNotFound) { // deleted since it was loaded
		writeError(w, http.StatusNotFound, "その会話はありません。")
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	sess.Title = truncate(title, 100)
	writeJSON(w, http.StatusOK, toSessionJSON(sess, s.namesOf(r.Context(), sessionIDs(sess))))
}
