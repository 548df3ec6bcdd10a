package web

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// maxNoteTitle bounds a page title.
const maxNoteTitle = 200

// handleNotes lists every page of a space in order:
// GET /api/notes?space= (default: the default space).
func (s *Server) handleNotes(w http.ResponseWriter, r *http.Request) {
	space, ok := s.space(w, r, r.URL.Query().Get("space"))
	if !ok {
		return
	}
	s.writeNotes(w, r, space)
}

func (s *Server) writeNotes(w http.ResponseWriter, r *http.Request, space memory.Space) {
	ps, err := s.opts.Deps.Memory.Notes(r.Context(), space)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toNotesJSON(ps))
}

// editor is who changes notes from the page, for their revisions.
func (s *Server) editor() db.NoteEditor {
	return db.NoteEditor{Name: webUserID, At: s.opts.Now()}
}

type noteRequest struct {
	Title   *string `json:"title"`
	Content *string `json:"content"`
	Section *string `json:"section"`
	Space   string  `json:"space"` // of a new page; default: the default space
}

// noteTitle checks a title; on failure it answers 400 and returns false.
func noteTitle(w http.ResponseWriter, title string) (string, bool) {
	title = strings.TrimSpace(title)
	switch {
	case title == "":
		writeFieldError(w, "title", "タイトルを入力してください")
		return "", false
	case len([]rune(title)) > maxNoteTitle:
		writeFieldError(w, "title", "タイトルが長すぎます（200 文字まで）")
		return "", false
	}
	return title, true
}

// noteError answers a failed notes write.
func (s *Server) noteError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, db.ErrNoteTitleTaken):
		writeJSON(w, http.StatusConflict, apiError{Error: "title: 同じタイトルのページがあります", Field: "title"})
	case errors.Is(err, db.ErrNotFound):
		writeError(w, http.StatusNotFound, "そのページはありません。")
	default:
		s.internalError(w, r, err)
	}
}

// handleCreateNote adds a page at the end of its section:
// POST /api/notes {title, content, section}.
func (s *Server) handleCreateNote(w http.ResponseWriter, r *http.Request) {
	var req noteRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	if req.Title == nil {
		writeFieldError(w, "title", "タイトルを入力してください")
		return
	}
	title, ok := noteTitle(w, *req.Title)
	if !ok {
		return
	}
	space, ok := s.space(w, r, req.Space)
	if !ok {
		return
	}
	p, err := s.opts.Deps.Memory.WriteNote(r.Context(), space, s.editor(), title, deref(req.Content), memory.NoteCreate, deref(req.Section))
	if err != nil {
		s.noteError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toNoteJSON(p))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// handleUpdateNote changes a page's title, content or section (moving it
// to the end of that section): PATCH /api/notes/{id}.
func (s *Server) handleUpdateNote(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	var req noteRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	ctx, pool, now := r.Context(), s.opts.Pool, s.opts.Now()
	p, err := db.NotePageByID(ctx, pool, id)
	if err != nil {
		s.noteError(w, r, err)
		return
	}
	if req.Title != nil {
		title, ok := noteTitle(w, *req.Title)
		if !ok {
			return
		}
		if title != p.Title {
			if p, err = db.RenameNotePage(ctx, pool, id, title, now); err != nil {
				s.noteError(w, r, err)
				return
			}
		}
	}
	if req.Content != nil && *req.Content != p.Content {
		if p, err = db.UpdateNoteContent(ctx, pool, id, *req.Content, s.editor()); err != nil {
			s.noteError(w, r, err)
			return
		}
	}
	if req.Section != nil && strings.TrimSpace(*req.Section) != p.Section {
		if err := s.opts.Deps.Memory.MoveNote(ctx, id, *req.Section); err != nil {
			s.noteError(w, r, err)
			return
		}
		if p, err = db.NotePageByID(ctx, pool, id); err != nil {
			s.noteError(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, toNoteJSON(p))
}

// handleDeleteNote removes a page: DELETE /api/notes/{id}.
func (s *Server) handleDeleteNote(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	if err := s.opts.Deps.Memory.DeleteNote(r.Context(), id, s.editor()); err != nil {
		s.noteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type renameSectionRequest struct {
	From  *string `json:"from"`
	To    *string `json:"to"`
	Space string  `json:"space"` // default: the default space
}

// handleRenameSection relabels a section:
// POST /api/notes/sections/rename {from, to}.
func (s *Server) handleRenameSection(w http.ResponseWriter, r *http.Request) {
	var req renameSectionRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	switch {
	case req.From == nil:
		writeFieldError(w, "from", "元のセクション名が必要です")
		return
	case req.To == nil:
		writeFieldError(w, "to", "新しいセクション名が必要です")
		return
	}
	space, ok := s.space(w, r, req.Space)
	if !ok {
		return
	}
	err := s.opts.Deps.Memory.RenameSection(r.Context(), space, *req.From, *req.To)
	switch {
	case errors.Is(err, db.ErrSectionExists):
		writeJSON(w, http.StatusConflict, apiError{Error: "to: その名前のセクションがすでにあります", Field: "to"})
	case errors.Is(err, db.ErrNotFound):
		writeError(w, http.StatusNotFound, "そのセクションはありません。")
	case err != nil:
		s.internalError(w, r, err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

type reorderRequest struct {
	PageID  int64   `json:"page_id"`
	Section *string `json:"section"`
	Order   []int64 `json:"order"`
	Space   string  `json:"space"` // default: the default space
}

// handleReorder applies a new order of all pages, moving page_id into
// section: POST /api/notes/reorder {page_id, section, order}. The order
// must hold every current page exactly once and keep each section's pages
// together; anything else is 400 and changes nothing.
func (s *Server) handleReorder(w http.ResponseWriter, r *http.Request) {
	var req reorderRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	if req.Order == nil {
		writeFieldError(w, "order", "全ページの ID の配列が必要です")
		return
	}
	space, ok := s.space(w, r, req.Space)
	if !ok {
		return
	}
	pages, err := s.opts.Deps.Memory.Notes(r.Context(), space)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	section := make(map[int64]string, len(pages))
	for _, p := range pages {
		section[p.ID] = p.Section
	}
	if _, ok := section[req.PageID]; !ok {
		writeFieldError(w, "page_id", "そのページはありません")
		return
	}
	if !slices.Contains(req.Order, req.PageID) {
		writeFieldError(w, "order", "page_id が order に含まれていません")
		return
	}
	if req.Section != nil {
		section[req.PageID] = strings.TrimSpace(*req.Section)
	}
	order := make([]db.NoteOrder, len(req.Order))
	for i, id := range req.Order {
		order[i] = db.NoteOrder{ID: id, Section: section[id]}
	}
	err = s.opts.Deps.Memory.ReorderNotes(r.Context(), space, order)
	if errors.Is(err, db.ErrInvalidOrder) {
		msg := err.Error()
		if i := strings.Index(msg, db.ErrInvalidOrder.Error()+": "); i >= 0 {
			msg = msg[i+len(db.ErrInvalidOrder.Error())+2:]
		}
		writeFieldError(w, "order", "現在のページ全部をちょうど一度ずつ、セクションごとにまとめて並べてください（"+msg+"）")
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	s.writeNotes(w, r, space)
}
