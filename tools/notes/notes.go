// Package notes holds the shared-notes tools the model calls: read_note and
// write_note. Their errors say what to do next, since they go back to the
// model as the tool's result.
package notes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
)

// Tool names.
const (
	ReadName  = "read_note"
	WriteName = "write_note"
)

// Store keeps the notes; *memory.Memory satisfies it.
type Store interface {
	Notes(ctx context.Context, space memory.Space) ([]db.NotePage, error)
	ReadNote(ctx context.Context, space memory.Space, titleOrID string) (db.NotePage, error)
	WriteNote(ctx context.Context, space memory.Space, by db.NoteEditor, title, content string, mode memory.NoteMode, section string) (db.NotePage, error)
}

var _ Store = (*memory.Memory)(nil)

// maxTitle bounds a page title, in characters.
const maxTitle = 100

type readArgs struct {
	TitleOrID string `json:"title_or_id" jsonschema_description:"the page's title, or its id (the number in [ ] in the notes index)"`
}

type writeArgs struct {
	Title   string `json:"title" jsonschema_description:"the page's title"`
	Content string `json:"content,omitempty" jsonschema_description:"Markdown text to write (not needed to delete)"`
	Mode    string `json:"mode,omitempty" jsonschema:"enum=append,enum=replace,enum=create,enum=delete,default=append" jsonschema_description:"append: add to the end of an existing page; replace: rewrite an existing page; create: make a new page; delete: remove a page (content is ignored; the admin page can restore it)"`
	Section string `json:"section,omitempty" jsonschema_description:"for create: the section to put the new page in (at its end); omit for none"`
}

// Tools returns read_note and write_note over s. They reach only the pages
// of the caller's space (tools.Caller.Space): a page of another space is
// "not found".
func Tools(s Store) []tools.Tool {
	return []tools.Tool{
		tools.MustNew(ReadName,
			"Read a page of the shared notes (the whole text). The notes index in the context lists the pages.",
			func(ctx context.Context, a readArgs) (string, error) { return read(ctx, s, a) }),
		tools.MustNew(WriteName,
			"Write to the shared notes everyone in the community sees: append to a page, replace its text, create a new page, or delete one. Replaced and deleted text is kept as a revision.",
			func(ctx context.Context, a writeArgs) (string, error) { return write(ctx, s, a) }),
	}
}

func read(ctx context.Context, s Store, a readArgs) (string, error) {
	if strings.TrimSpace(a.TitleOrID) == "" {
		return "", errors.New("title_or_id is empty: give a page title or id from the notes index")
	}
	c, _ := tools.CallerFrom(ctx)
	p, err := s.ReadNote(ctx, memory.Space(c.Space), a.TitleOrID)
	if errors.Is(err, db.ErrNotFound) {
		return "", fmt.Errorf("no note page %q. %s", a.TitleOrID, existing(ctx, s, memory.Space(c.Space)))
	}
	if err != nil {
		return "", err
	}
	section := p.Section
	if section == "" {
		section = "(none)"
	}
	return fmt.Sprintf("# %s\n(id %d, section %s, updated %s)\n\n%s", p.Title, p.ID, section,
		p.UpdatedAt.Format("2006-01-02 15:04 UTC"), p.Content), nil
}

func write(ctx context.Context, s Store, a writeArgs) (string, error) {
	title := strings.TrimSpace(a.Title)
	if title == "" {
		return "", errors.New("title is empty: give the page's title")
	}
	if n := len([]rune(title)); n > maxTitle {
		return "", fmt.Errorf("title is %d characters, at most %d: use a shorter title", n, maxTitle)
	}
	mode := memory.NoteMode(a.Mode)
	if mode == "" {
		mode = memory.NoteAppend
	}
	if strings.TrimSpace(a.Content) == "" && mode != memory.NoteCreate && mode != memory.NoteDelete {
		return "", errors.New("content is empty: give the text to write")
	}
	c, _ := tools.CallerFrom(ctx)
	by := db.NoteEditor{Name: c.UserName, SessionKey: c.Session}
	if by.Name == "" {
		by.Name = c.UserID
	}
	p, err := s.WriteNote(ctx, memory.Space(c.Space), by, title, a.Content, mode, a.Section)
	switch {
	case errors.Is(err, db.ErrNotFound):
		return "", fmt.Errorf("no note page %q to %s. Call write_note with mode \"create\" to make it, or use an existing title. %s",
			title, mode, existing(ctx, s, memory.Space(c.Space)))
	case errors.Is(err, db.ErrNoteTitleTaken):
		return "", fmt.Errorf("a note page %q already exists. Call write_note with mode \"append\" to add to it or \"replace\" to rewrite it (read_note shows its text first)", title)
	case err != nil:
		return "", err
	}
	verb := map[memory.NoteMode]string{memory.NoteAppend: "appended to", memory.NoteReplace: "replaced", memory.NoteCreate: "created"}[mode]
	if mode == memory.NoteDelete {
		return fmt.Sprintf("OK: deleted note page [%d] %q (its text is kept as a revision the admin page can restore).", p.ID, p.Title), nil
	}
	return fmt.Sprintf("OK: %s note page [%d] %q (%d characters now).", verb, p.ID, p.Title, len([]rune(p.Content))), nil
}

// existing lists page titles for an error message.
func existing(ctx context.Context, s Store, space memory.Space) string {
	pages, err := s.Notes(ctx, space)
	if err != nil || len(pages) == 0 {
		return "There are no note pages yet."
	}
	titles := make([]string, 0, min(len(pages), 30))
	for _, p := range pages[:min(len(pages), 30)] {
		titles = append(titles, fmt.Sprintf("%q", p.Title))
	}
	more := ""
	if len(pages) > 30 {
		more = fmt.Sprintf(" and %d more", len(pages)-30)
	}
	return "Existing pages: " + strings.Join(titles, ", ") + more + "."
}
