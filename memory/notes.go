package memory

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/yorozu-bot/yorozu/db"
)

// NoteMode is how WriteNote writes a page.
type NoteMode string

// Note modes.
const (
	NoteAppend  NoteMode = "append"  // add to the end of an existing page
	NoteReplace NoteMode = "replace" // replace an existing page's content
	NoteCreate  NoteMode = "create"  // make a new page
	NoteDelete  NoteMode = "delete"  // remove a page (its text stays restorable)
)

// NotesEvent tells subscribers that the shared notes changed, e.g. during a
// turn (Session is the turn's session; empty for the admin page).
type NotesEvent struct {
	Space   Space
	Session SessionKey
	Action  string // create, append, replace, move, rename_section, reorder, delete, restore, link, unlink
	PageID  int64  // 0 for section renames and reorders
	Title   string
}

type notesHub struct {
	mu   sync.Mutex
	subs map[chan NotesEvent]struct{}
}

// SubscribeNotes returns a channel of NotesEvent and a cancel function that
// closes it. Events are dropped for a subscriber whose buffer (16) is full,
// so a slow page never slows a turn.
func (m *Memory) SubscribeNotes() (<-chan NotesEvent, func()) {
	h := &m.notes
	ch := make(chan NotesEvent, 16)
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[chan NotesEvent]struct{}{}
	}
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			delete(h.subs, ch)
			h.mu.Unlock()
			close(ch)
		})
	}
}

func (m *Memory) notesChanged(ev NotesEvent) {
	h := &m.notes
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// Notes returns every page of space (empty: the default space) in order.
func (m *Memory) Notes(ctx context.Context, space Space) ([]db.NotePage, error) {
	space, err := m.space(ctx, space)
	if err != nil {
		return nil, err
	}
	return db.NotePages(ctx, m.pool, string(space))
}

// ReadNote returns the page of space whose id or exact title is titleOrID;
// failing that, the only page whose title matches ignoring case and
// surrounding space. Otherwise (also for a page of another space) the error
// wraps db.ErrNotFound.
func (m *Memory) ReadNote(ctx context.Context, space Space, titleOrID string) (db.NotePage, error) {
	space, err := m.space(ctx, space)
	if err != nil {
		return db.NotePage{}, err
	}
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(titleOrID), "#"))
	if id, err := strconv.ParseInt(strings.Trim(s, "[]"), 10, 64); err == nil {
		p, err := db.NotePageByID(ctx, m.pool, id)
		if err == nil && p.Space == string(space) || err != nil && !errors.Is(err, db.ErrNotFound) {
			return p, err
		}
	}
	p, err := db.NotePageByTitle(ctx, m.pool, string(space), strings.TrimSpace(titleOrID))
	if !errors.Is(err, db.ErrNotFound) {
		return p, err
	}
	pages, err := db.NotePages(ctx, m.pool, string(space))
	if err != nil {
		return db.NotePage{}, err
	}
	var match []db.NotePage
	for _, p := range pages {
		if strings.EqualFold(strings.TrimSpace(p.Title), s) {
			match = append(match, p)
		}
	}
	if len(match) == 1 {
		return match[0], nil
	}
	return db.NotePage{}, fmt.Errorf("read note %q: %w", titleOrID, db.ErrNotFound)
}

// WriteNote writes the page of space titled title, as by. create makes a new
// page at the end of section (an existing title wraps db.ErrNoteTitleTaken);
// append, replace and delete need the page to exist in space (else the
// error wraps db.ErrNotFound) and ignore section. replace and delete keep
// the text they replace or remove as a revision (see NoteRevisions); delete
// ignores content and returns the page as it was.
func (m *Memory) WriteNote(ctx context.Context, space Space, by db.NoteEditor, title, content string, mode NoteMode, section string) (db.NotePage, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return db.NotePage{}, errors.New("write note: empty title")
	}
	space, err := m.space(ctx, space)
	if err != nil {
		return db.NotePage{}, err
	}
	by.At = orNow(by.At, m.opts.Now())
	var p db.NotePage
	switch mode {
	case NoteCreate:
		p, err = db.CreateNotePage(ctx, m.pool, string(space), title, content, strings.TrimSpace(section))
	case NoteAppend, NoteReplace, NoteDelete:
		p, err = m.ReadNote(ctx, space, title)
		if err != nil {
			return db.NotePage{}, err
		}
		switch mode {
		case NoteAppend:
			p, err = db.AppendNoteContent(ctx, m.pool, p.ID, content, by.At)
		case NoteReplace:
			p, err = db.UpdateNoteContent(ctx, m.pool, p.ID, content, by)
		default:
			err = db.DeleteNotePage(ctx, m.pool, p.ID, by)
		}
	default:
		return db.NotePage{}, fmt.Errorf("write note %q: unknown mode %q", title, mode)
	}
	if err != nil {
		return db.NotePage{}, err
	}
	m.notesChanged(NotesEvent{Space: space, Session: SessionKey(by.SessionKey), Action: string(mode), PageID: p.ID, Title: p.Title})
	return p, nil
}

// MoveNote puts a page (of any space: the admin page) at the end of section.
func (m *Memory) MoveNote(ctx context.Context, id int64, section string) error {
	if err := db.SetNoteSection(ctx, m.pool, id, strings.TrimSpace(section)); err != nil {
		return err
	}
	m.notesChanged(NotesEvent{Action: "move", PageID: id})
	return nil
}

// RenameSection relabels a section of space; its pages keep their places.
func (m *Memory) RenameSection(ctx context.Context, space Space, from, to string) error {
	space, err := m.space(ctx, space)
	if err != nil {
		return err
	}
	if err := db.RenameNoteSection(ctx, m.pool, string(space), from, strings.TrimSpace(to)); err != nil {
		return err
	}
	m.notesChanged(NotesEvent{Space: space, Action: "rename_section", Title: to})
	return nil
}

// ReorderNotes applies a whole new order to the pages of space (see
// db.ReorderNotePages).
func (m *Memory) ReorderNotes(ctx context.Context, space Space, order []db.NoteOrder) error {
	space, err := m.space(ctx, space)
	if err != nil {
		return err
	}
	if err := db.ReorderNotePages(ctx, m.pool, string(space), order); err != nil {
		return err
	}
	m.notesChanged(NotesEvent{Space: space, Action: "reorder"})
	return nil
}

// DeleteNote removes a page (of any space: the admin page); its text stays
// restorable among its revisions.
func (m *Memory) DeleteNote(ctx context.Context, id int64, by db.NoteEditor) error {
	by.At = orNow(by.At, m.opts.Now())
	if err := db.DeleteNotePage(ctx, m.pool, id, by); err != nil {
		return err
	}
	m.notesChanged(NotesEvent{Session: SessionKey(by.SessionKey), Action: "delete", PageID: id})
	return nil
}

// NoteRevisions returns the kept earlier versions of page id (of any space:
// the admin page), newest first; a deleted page's too.
func (m *Memory) NoteRevisions(ctx context.Context, id int64) ([]db.NoteRevision, error) {
	return db.NoteRevisions(ctx, m.pool, id)
}

// RestoreNote puts revision revID's text back on its page, recreating a
// deleted page; the text it replaces becomes a revision in turn.
func (m *Memory) RestoreNote(ctx context.Context, revID int64, by db.NoteEditor) (db.NotePage, error) {
	by.At = orNow(by.At, m.opts.Now())
	p, err := db.RestoreNoteRevision(ctx, m.pool, revID, by)
	if err != nil {
		return db.NotePage{}, err
	}
	m.notesChanged(NotesEvent{Space: Space(p.Space), Session: SessionKey(by.SessionKey), Action: "restore", PageID: p.ID, Title: p.Title})
	return p, nil
}
