package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Notes errors, wrapped by the functions below.
var (
	// ErrNoteTitleTaken: another page already has that title.
	ErrNoteTitleTaken = errors.New("a note page with that title exists")
	// ErrSectionExists: a rename would merge two sections.
	ErrSectionExists = errors.New("section exists")
	// ErrInvalidOrder: a reorder request does not match the current pages or
	// splits a section.
	ErrInvalidOrder = errors.New("invalid note order")
)

// NotePage is a row of note_pages. Pages are ordered by Position (0, 1, …
// without gaps) and the pages of one section are contiguous.
type NotePage struct {
	ID        int64     `db:"id"`
	Title     string    `db:"title"`
	Content   string    `db:"content"`
	Section   string    `db:"section"` // "" is the unnamed section
	Position  int       `db:"position"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

// NoteOrder places one page in a reorder: its id and its section.
type NoteOrder struct {
	ID      int64
	Section string
}

// TxBeginner starts transactions; *pgxpool.Pool and pgx.Tx satisfy it.
type TxBeginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

const notePageColumns = "id, title, content, section, position, created_at, updated_at"

// notesLockKey is the advisory lock every writer of page order holds for its
// transaction, so concurrent writers apply one after the other against the
// order the previous one left.
const notesLockKey int64 = 0x796f726f7a756e6f

// NotePages returns every page in order.
func NotePages(ctx context.Context, q Querier) ([]NotePage, error) {
	rows, err := q.Query(ctx, "SELECT "+notePageColumns+" FROM note_pages ORDER BY position")
	if err != nil {
		return nil, fmt.Errorf("note pages: %w", err)
	}
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[NotePage])
	if err != nil {
		return nil, fmt.Errorf("note pages: %w", err)
	}
	return ps, nil
}

// NotePageByID returns a page, or ErrNotFound.
func NotePageByID(ctx context.Context, q Querier, id int64) (NotePage, error) {
	return onePage(ctx, q, "id = $1", id, fmt.Sprint(id))
}

// NotePageByTitle returns the page with exactly title, or ErrNotFound.
func NotePageByTitle(ctx context.Context, q Querier, title string) (NotePage, error) {
	return onePage(ctx, q, "title = $1", title, fmt.Sprintf("%q", title))
}

func onePage(ctx context.Context, q Querier, where string, arg any, name string) (NotePage, error) {
	rows, err := q.Query(ctx, "SELECT "+notePageColumns+" FROM note_pages WHERE "+where, arg)
	if err != nil {
		return NotePage{}, fmt.Errorf("get note page %s: %w", name, err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[NotePage])
	if err != nil {
		return NotePage{}, fmt.Errorf("get note page %s: %w", name, interpretError(err))
	}
	return p, nil
}

// CreateNotePage adds a page at the end of its section (a new section goes
// last) and returns it.
func CreateNotePage(ctx context.Context, b TxBeginner, title, content, section string) (NotePage, error) {
	var page NotePage
	err := notesTx(ctx, b, func(tx pgx.Tx, order []NoteOrder) error {
		rows, err := tx.Query(ctx, `INSERT INTO note_pages (title, content, section, position)
VALUES ($1, $2, $3, (SELECT count(*) FROM note_pages)) RETURNING id`, title, content, section)
		if err != nil {
			return err
		}
		id, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[int64])
		if err != nil {
			return noteError(err)
		}
		if err := writeOrder(ctx, tx, insertAtSectionEnd(order, NoteOrder{ID: id, Section: section})); err != nil {
			return err
		}
		page, err = NotePageByID(ctx, tx, id)
		return err
	})
	if err != nil {
		return NotePage{}, fmt.Errorf("create note page %q: %w", title, err)
	}
	return page, nil
}

// UpdateNoteContent replaces the content of a page; order is untouched.
func UpdateNoteContent(ctx context.Context, q Querier, id int64, content string, at time.Time) (NotePage, error) {
	rows, err := q.Query(ctx, "UPDATE note_pages SET content = $2, updated_at = $3 WHERE id = $1 RETURNING "+notePageColumns,
		id, content, utcOrNow(at))
	if err != nil {
		return NotePage{}, fmt.Errorf("update note page %d: %w", id, err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[NotePage])
	if err != nil {
		return NotePage{}, fmt.Errorf("update note page %d: %w", id, interpretError(err))
	}
	return p, nil
}

// SetNoteSection moves a page to the end of section (the end of all pages
// when the section is new). Setting the section it already has changes
// nothing.
func SetNoteSection(ctx context.Context, b TxBeginner, id int64, section string) error {
	err := notesTx(ctx, b, func(tx pgx.Tx, order []NoteOrder) error {
		i := indexOf(order, id)
		if i < 0 {
			return ErrNotFound
		}
		if order[i].Section == section {
			return nil
		}
		rest := append(append([]NoteOrder{}, order[:i]...), order[i+1:]...)
		return writeOrder(ctx, tx, insertAtSectionEnd(rest, NoteOrder{ID: id, Section: section}))
	})
	if err != nil {
		return fmt.Errorf("move note page %d to section %q: %w", id, section, err)
	}
	return nil
}

// RenameNoteSection relabels section from as to; pages keep their places.
// Renaming onto another existing section is ErrSectionExists, a section
// without pages ErrNotFound.
func RenameNoteSection(ctx context.Context, b TxBeginner, from, to string) error {
	err := notesTx(ctx, b, func(tx pgx.Tx, order []NoteOrder) error {
		found := false
		for _, o := range order {
			if o.Section == to && from != to {
				return ErrSectionExists
			}
			found = found || o.Section == from
		}
		if !found {
			return ErrNotFound
		}
		_, err := tx.Exec(ctx, "UPDATE note_pages SET section = $2 WHERE section = $1", from, to)
		return err
	})
	if err != nil {
		return fmt.Errorf("rename note section %q to %q: %w", from, to, err)
	}
	return nil
}

// ReorderNotePages applies a whole new order: every current page exactly
// once, each with its section, the pages of a section next to each other.
// Anything else is ErrInvalidOrder and changes nothing.
func ReorderNotePages(ctx context.Context, b TxBeginner, want []NoteOrder) error {
	err := notesTx(ctx, b, func(tx pgx.Tx, order []NoteOrder) error {
		if err := validOrder(order, want); err != nil {
			return err
		}
		return writeOrder(ctx, tx, want)
	})
	if err != nil {
		return fmt.Errorf("reorder note pages: %w", err)
	}
	return nil
}

// DeleteNotePage removes a page; the pages after it move up.
func DeleteNotePage(ctx context.Context, b TxBeginner, id int64) error {
	err := notesTx(ctx, b, func(tx pgx.Tx, order []NoteOrder) error {
		i := indexOf(order, id)
		if i < 0 {
			return ErrNotFound
		}
		if _, err := tx.Exec(ctx, "DELETE FROM note_pages WHERE id = $1", id); err != nil {
			return err
		}
		return writeOrder(ctx, tx, append(order[:i:i], order[i+1:]...))
	})
	if err != nil {
		return fmt.Errorf("delete note page %d: %w", id, err)
	}
	return nil
}

func validOrder(current, want []NoteOrder) error {
	if len(want) != len(current) {
		return fmt.Errorf("%w: %d pages given, %d exist", ErrInvalidOrder, len(want), len(current))
	}
	exists := make(map[int64]bool, len(current))
	for _, o := range current {
		exists[o.ID] = true
	}
	seen := make(map[int64]bool, len(want))
	closed := map[string]bool{}
	for i, o := range want {
		if !exists[o.ID] {
			return fmt.Errorf("%w: page %d does not exist", ErrInvalidOrder, o.ID)
		}
		if seen[o.ID] {
			return fmt.Errorf("%w: page %d given twice", ErrInvalidOrder, o.ID)
		}
		seen[o.ID] = true
		if i > 0 && want[i-1].Section != o.Section {
			closed[want[i-1].Section] = true
			if closed[o.Section] {
				return fmt.Errorf("%w: section %q is split", ErrInvalidOrder, o.Section)
			}
		}
	}
	return nil
}

// notesTx runs fn in a transaction holding the notes lock, with the current
// order.
func notesTx(ctx context.Context, b TxBeginner, fn func(tx pgx.Tx, order []NoteOrder) error) error {
	return pgx.BeginFunc(ctx, b, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", notesLockKey); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "SELECT id, section FROM note_pages ORDER BY position")
		if err != nil {
			return err
		}
		var order []NoteOrder
		var o NoteOrder
		if _, err := pgx.ForEachRow(rows, []any{&o.ID, &o.Section}, func() error {
			order = append(order, o)
			return nil
		}); err != nil {
			return err
		}
		return fn(tx, order)
	})
}

// writeOrder sets position and section of every page from order.
func writeOrder(ctx context.Context, tx pgx.Tx, order []NoteOrder) error {
	ids, sections := make([]int64, len(order)), make([]string, len(order))
	for i, o := range order {
		ids[i], sections[i] = o.ID, o.Section
	}
	_, err := tx.Exec(ctx, `
UPDATE note_pages p SET position = o.ord - 1, section = o.section,
    updated_at = CASE WHEN p.section <> o.section THEN now() ELSE p.updated_at END
FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY o(id, section, ord)
WHERE p.id = o.id AND (p.position <> o.ord - 1 OR p.section <> o.section)`, ids, sections)
	return err
}

// insertAtSectionEnd puts p after the last page of its section, or last.
func insertAtSectionEnd(order []NoteOrder, p NoteOrder) []NoteOrder {
	at := len(order)
	for i := len(order) - 1; i >= 0; i-- {
		if order[i].Section == p.Section {
			at = i + 1
			break
		}
	}
	out := make([]NoteOrder, 0, len(order)+1)
	out = append(out, order[:at]...)
	out = append(out, p)
	return append(out, order[at:]...)
}

func indexOf(order []NoteOrder, id int64) int {
	for i, o := range order {
		if o.ID == id {
			return i
		}
	}
	return -1
}

func noteError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "note_pages_title_key" {
		return ErrNoteTitleTaken
	}
	return interpretError(err)
}

// NoteIndexItem is one line of the notes index shown to the model.
type NoteIndexItem struct {
	ID      int64  `db:"id"`
	Title   string `db:"title"`
	Section string `db:"section"`
	Head    string `db:"head"`   // the first 40 characters of the content
	Linked  bool   `db:"linked"` // linked to the session asked about
}

// NotesIndexByKey returns up to limit pages in order, each with the start of
// its content and whether the session with key linked it.
func NotesIndexByKey(ctx context.Context, q Querier, key string, limit int) ([]NoteIndexItem, error) {
	rows, err := q.Query(ctx, `
SELECT p.id, p.title, p.section, left(p.content, 40) AS head,
       EXISTS (SELECT 1 FROM session_note_pages l JOIN sessions s ON s.id = l.session_id
               WHERE s.key = $1 AND l.page_id = p.id) AS linked
FROM note_pages p ORDER BY p.position LIMIT $2`, key, limit)
	if err != nil {
		return nil, fmt.Errorf("notes index for %q: %w", key, err)
	}
	items, err := pgx.CollectRows(rows, pgx.RowToStructByName[NoteIndexItem])
	if err != nil {
		return nil, fmt.Errorf("notes index for %q: %w", key, err)
	}
	return items, nil
}

// LinkNotePage links a page to a session; linking twice is harmless.
func LinkNotePage(ctx context.Context, q Querier, sessionID, pageID int64) error {
	if _, err := q.Exec(ctx, `INSERT INTO session_note_pages (session_id, page_id) VALUES ($1, $2)
ON CONFLICT DO NOTHING`, sessionID, pageID); err != nil {
		return fmt.Errorf("link note page %d to session %d: %w", pageID, sessionID, noteLinkError(err))
	}
	return nil
}

// UnlinkNotePage removes a link; a missing link is ErrNotFound.
func UnlinkNotePage(ctx context.Context, q Querier, sessionID, pageID int64) error {
	tag, err := q.Exec(ctx, "DELETE FROM session_note_pages WHERE session_id = $1 AND page_id = $2", sessionID, pageID)
	if err != nil {
		return fmt.Errorf("unlink note page %d from session %d: %w", pageID, sessionID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("unlink note page %d from session %d: %w", pageID, sessionID, ErrNotFound)
	}
	return nil
}

func noteLinkError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" {
		return ErrNotFound
	}
	return err
}

// LinkedNotePagesByKey returns the pages linked to the session with key, in
// page order.
func LinkedNotePagesByKey(ctx context.Context, q Querier, key string) ([]NotePage, error) {
	rows, err := q.Query(ctx, `
SELECT p.id, p.title, p.content, p.section, p.position, p.created_at, p.updated_at
FROM note_pages p JOIN session_note_pages l ON l.page_id = p.id JOIN sessions s ON s.id = l.session_id
WHERE s.key = $1 ORDER BY p.position`, key)
	if err != nil {
		return nil, fmt.Errorf("linked note pages of %q: %w", key, err)
	}
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[NotePage])
	if err != nil {
		return nil, fmt.Errorf("linked note pages of %q: %w", key, err)
	}
	return ps, nil
}

// AppendNoteContent adds text to the end of a page's content, on a new line
// when it already has some, in one statement (concurrent appends both land).
func AppendNoteContent(ctx context.Context, q Querier, id int64, text string, at time.Time) (NotePage, error) {
	rows, err := q.Query(ctx, `UPDATE note_pages
SET content = CASE WHEN content = '' THEN $2 ELSE content || E'\n' || $2 END, updated_at = $3
WHERE id = $1 RETURNING `+notePageColumns, id, text, utcOrNow(at))
	if err != nil {
		return NotePage{}, fmt.Errorf("append to note page %d: %w", id, err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[NotePage])
	if err != nil {
		return NotePage{}, fmt.Errorf("append to note page %d: %w", id, interpretError(err))
	}
	return p, nil
}
