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
)

// NotesEvent tells subscribers that the shared notes changed, e.g. during a
// turn (Session is the turn's session; empty for the admin page).
type NotesEvent struct {
	Session SessionKey
	Action  string // create, append, replace, move, rename_section, reorder, delete, link, unlink
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

// Notes returns every page in order.
func (m *Memory) Notes(ctx context.Context) ([]db.NotePage, error) {
	return db.NotePages(ctx, m.pool)
}

// ReadNote returns the page whose id or exact title is titleOrID; failing
// that, the only page whose title matches ignoring case and surrounding
// space. Otherwise the error wraps db.ErrNotFound.
func (m *Memory) ReadNote(ctx context.Context, titleOrID string) (db.NotePage, error) {
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(titleOrID), "#"))
	if id, err := strconv.ParseInt(strings.Trim(s, "[]"), 10, 64); err == nil {
		p, err := db.NotePageByID(ctx, m.pool, id)
		if !errors.Is(err, db.ErrNotFound) {
			return p, err
		}
	}
	p, err := db.NotePageByTitle(ctx, m.pool, strings.TrimSpace(titleOrID))
	if !errors.Is(err, db.ErrNotFound) {
		return p, err
	}
	pages, err := db.NotePages(ctx, m.pool)
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

// WriteNote writes the page titled title. create makes a new page at the end
// of section (an existing title wraps db.ErrNoteTitleTaken); append and
// replace need the page to exist (else the error wraps db.ErrNotFound) and
// ignore section. key is the session whose turn wrote it, for the event.
func (m *Memory) WriteNote(ctx context.Context, key SessionKey, title, content string, mode NoteMode, section string) (db.NotePage, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return db.NotePage{}, errors.New("write note: empty title")
	}
	var p db.NotePage
	var err error
	switch mode {
	case NoteCreate:
		p, err = db.CreateNotePage(ctx, m.pool, title, content, strings.TrimSpace(section))
	case NoteAppend, NoteReplace:
		p, err = m.ReadNote(ctx, title)
		if err != nil {
			return db.NotePage{}, err
		}
		if mode == NoteAppend {
			p, err = db.AppendNoteContent(ctx, m.pool, p.ID, content, m.opts.Now())
		} else {
			p, err = db.UpdateNoteContent(ctx, m.pool, p.ID, content, m.opts.Now())
		}
	default:
		return db.NotePage{}, fmt.Errorf("write note %q: unknown mode %q", title, mode)
	}
	if err != nil {
		return db.NotePage{}, err
	}
	m.notesChanged(NotesEvent{Session: key, Action: string(mode), PageID: p.ID, Title: p.Title})
	return p, nil
}

// MoveNote puts a page at the end of section.
func (m *Memory) MoveNote(ctx context.Context, id int64, section string) error {
	if err := db.SetNoteSection(ctx, m.pool, id, strings.TrimSpace(section)); err != nil {
		return err
	}
	m.notesChanged(NotesEvent{Action: "move", PageID: id})
	return nil
}

// RenameSection relabels a section; its pages keep their places.
func (m *Memory) RenameSection(ctx context.Context, from, to string) error {
	if err := db.RenameNoteSection(ctx, m.pool, from, strings.TrimSpace(to)); err != nil {
		return err
	}
	m.notesChanged(NotesEvent{Action: "rename_section", Title: to})
	return nil
}

// ReorderNotes applies a whole new order (see db.ReorderNotePages).
func (m *Memory) ReorderNotes(ctx context.Context, order []db.NoteOrder) error {
	if err := db.ReorderNotePages(ctx, m.pool, order); err != nil {
		return err
	}
	m.notesChanged(NotesEvent{Action: "reorder"})
	return nil
}

// DeleteNote removes a page.
func (m *Memory) DeleteNote(ctx context.Context, id int64) error {
	if err := db.DeleteNotePage(ctx, m.pool, id); err != nil {
		return err
	}
	m.notesChanged(NotesEvent{Action: "delete", PageID: id})
	return nil
}

// LinkNote links a page to session key (creating the session if needed), so
// its full text joins that session's context.
func (m *Memory) LinkNote(ctx context.Context, key SessionKey, pageID int64) error {
	s, err := db.UpsertSession(ctx, m.pool, db.SessionParams{Key: string(key), At: m.opts.Now()})
	if err != nil {
		return err
	}
	if err := db.LinkNotePage(ctx, m.pool, s.ID, pageID); err != nil {
		return err
	}
	m.notesChanged(NotesEvent{Session: key, Action: "link", PageID: pageID})
	return nil
}

// UnlinkNote removes a page's link to session key.
func (m *Memory) UnlinkNote(ctx context.Context, key SessionKey, pageID int64) error {
	s, err := db.SessionByKey(ctx, m.pool, string(key))
	if err != nil {
		return err
	}
	if err := db.UnlinkNotePage(ctx, m.pool, s.ID, pageID); err != nil {
		return err
	}
	m.notesChanged(NotesEvent{Session: key, Action: "unlink", PageID: pageID})
	return nil
}
