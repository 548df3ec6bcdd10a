package memory

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
	m.dropSpace(space)
	if err != nil {
		return db.NotePage{}, err
	}
	return p, nil
}

// MoveNote puts a page (of any space: the admin page) at the end of section.
func (m *Memory) MoveNote(ctx context.Context, id int64, section string) error {
	defer m.dropAll() // of a space not known here
	return db.SetNoteSection(ctx, m.pool, id, strings.TrimSpace(section))
}

// RenameSection relabels a section of space; its pages keep their places.
func (m *Memory) RenameSection(ctx context.Context, space Space, from, to string) error {
	space, err := m.space(ctx, space)
	if err != nil {
		return err
	}
	defer m.dropSpace(space)
	return db.RenameNoteSection(ctx, m.pool, string(space), from, strings.TrimSpace(to))
}

// ReorderNotes applies a whole new order to the pages of space (see
// db.ReorderNotePages).
func (m *Memory) ReorderNotes(ctx context.Context, space Space, order []db.NoteOrder) error {
	space, err := m.space(ctx, space)
	if err != nil {
		return err
	}
	defer m.dropSpace(space)
	return db.ReorderNotePages(ctx, m.pool, string(space), order)
}

// DeleteNote removes a page (of any space: the admin page); its text stays
// restorable among its revisions.
func (m *Memory) DeleteNote(ctx context.Context, id int64, by db.NoteEditor) error {
	by.At = orNow(by.At, m.opts.Now())
	defer m.dropAll() // of a space not known here
	return db.DeleteNotePage(ctx, m.pool, id, by)
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
	defer m.dropAll() // of a space not known here
	return db.RestoreNoteRevision(ctx, m.pool, revID, by)
}
