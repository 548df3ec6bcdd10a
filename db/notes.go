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
	Space     string    `db:"space"` // pages are per space; titles are unique within one
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

const notePageColumns = "id, space, title, content, section, position, created_at, updated_at"

// notesLockSQL takes the advisory lock every writer of a space's page order
// holds for its transaction, so concurrent writers apply one after the other
// against the order the previous one left.
const notesLockSQL = "SELECT pg_advisory_xact_lock(hashtextextended('yorozu.notes:' || $1, 0))"

// NotePages returns every page of space in order.
func NotePages(ctx context.Context, q Querier, space string) ([]NotePage, error) {
	rows, err := q.Query(ctx, "SELECT "+notePageColumns+" FROM note_pages WHERE space = $1 ORDER BY position", space)
	if err != nil {
		return nil, fmt.Errorf("note pages of %s: %w", space, err)
	}
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[NotePage])
	if err != nil {
		return nil, fmt.Errorf("note pages of %s: %w", space, err)
	}
	return ps, nil
}

// NotePageByID returns a page of any space, or ErrNotFound. Callers acting
// for a conversation compare its Space with theirs.
func NotePageByID(ctx context.Context, q Querier, id int64) (NotePage, error) {
	return onePage(ctx, q, "id = $1", fmt.Sprint(id), id)
}

// NotePageByTitle returns the page of space with exactly title, or ErrNotFound.
func NotePageByTitle(ctx context.Context, q Querier, space, title string) (NotePage, error) {
	return onePage(ctx, q, "space = $1 AND title = $2", fmt.Sprintf("%q in %s", title, space), space, title)
}

func onePage(ctx context.Context, q Querier, where string, name string, args ...any) (NotePage, error) {
	rows, err := q.Query(ctx, "SELECT "+notePageColumns+" FROM note_pages WHERE "+where, args...)
	if err != nil {
		return NotePage{}, fmt.Errorf("get note page %s: %w", name, err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[NotePage])
	if err != nil {
		return NotePage{}, fmt.Errorf("get note page %s: %w", name, interpretError(err))
	}
	return p, nil
}

// CreateNotePage adds a page to space at the end of its section (a new
// section goes last) and returns it.
func CreateNotePage(ctx context.Context, b TxBeginner, space, title, content, section string) (NotePage, error) {
	if space == "" {
		return NotePage{}, fmt.Errorf("create note page %q: empty space", title)
	}
	var page NotePage
	err := notesTx(ctx, b, space, func(tx pgx.Tx, order []NoteOrder) error {
		rows, err := tx.Query(ctx, `INSERT INTO note_pages (space, title, content, section, position)
VALUES ($4, $1, $2, $3, (SELECT count(*) FROM note_pages WHERE space = $4)) RETURNING id`, title, content, section, space)
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

// UpdateNoteContent replaces the content of a page; order is untouched. The
// text it had is kept as a revision by ed (see NoteRevisions).
func UpdateNoteContent(ctx context.Context, b TxBeginner, id int64, content string, ed NoteEditor) (NotePage, error) {
	var p NotePage
	err := pgx.BeginFunc(ctx, b, func(tx pgx.Tx) error {
		old, err := onePage(ctx, tx, "id = $1 FOR UPDATE", fmt.Sprint(id), id)
		if err != nil {
			return err
		}
		if err := saveRevision(ctx, tx, old, RevisionReplace, ed); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "UPDATE note_pages SET content = $2, updated_at = $3 WHERE id = $1 RETURNING "+notePageColumns,
			id, content, utcOrNow(ed.At))
		if err != nil {
			return err
		}
		p, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[NotePage])
		return err
	})
	if err != nil {
		return NotePage{}, fmt.Errorf("update note page %d: %w", id, interpretError(err))
	}
	return p, nil
}

// SetNoteSection moves a page to the end of section (the end of all pages
// when the section is new). Setting the section it already has changes
// nothing.
func SetNoteSection(ctx context.Context, b TxBeginner, id int64, section string) error {
	err := pageTx(ctx, b, id, func(tx pgx.Tx, order []NoteOrder) error {
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

// RenameNoteSection relabels section from as to in space; pages keep their
// places. Renaming onto another existing section is ErrSectionExists, a
// section without pages ErrNotFound.
func RenameNoteSection(ctx context.Context, b TxBeginner, space, from, to string) error {
	err := notesTx(ctx, b, space, func(tx pgx.Tx, order []NoteOrder) error {
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
		_, err := tx.Exec(ctx, "UPDATE note_pages SET section = $2 WHERE space = $3 AND section = $1", from, to, space)
		return err
	})
	if err != nil {
		return fmt.Errorf("rename note section %q to %q: %w", from, to, err)
	}
	return nil
}

// ReorderNotePages applies a whole new order to space: every current page
// of it exactly once, each with its section, the pages of a section next to
// each other. Anything else is ErrInvalidOrder and changes nothing.
func ReorderNotePages(ctx context.Context, b TxBeginner, space string, want []NoteOrder) error {
	err := notesTx(ctx, b, space, func(tx pgx.Tx, order []NoteOrder) error {
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

// DeleteNotePage removes a page; the pages after it move up. Its last text
// is kept as a revision by ed, so it can be restored.
func DeleteNotePage(ctx context.Context, b TxBeginner, id int64, ed NoteEditor) error {
	err := pageTx(ctx, b, id, func(tx pgx.Tx, order []NoteOrder) error {
		i := indexOf(order, id)
		if i < 0 {
			return ErrNotFound
		}
		old, err := NotePageByID(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := saveRevision(ctx, tx, old, RevisionDelete, ed); err != nil {
			return err
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

// pageTx is notesTx on the space of page id (ErrNotFound when there is no
// such page).
func pageTx(ctx context.Context, b TxBeginner, id int64, fn func(tx pgx.Tx, order []NoteOrder) error) error {
	return pgx.BeginFunc(ctx, b, func(tx pgx.Tx) error {
		var space string
		if err := tx.QueryRow(ctx, "SELECT space FROM note_pages WHERE id = $1", id).Scan(&space); err != nil {
			return interpretError(err)
		}
		return lockedOrder(ctx, tx, space, fn)
	})
}

// notesTx runs fn in a transaction holding the notes lock of space, with
// its current order.
func notesTx(ctx context.Context, b TxBeginner, space string, fn func(tx pgx.Tx, order []NoteOrder) error) error {
	return pgx.BeginFunc(ctx, b, func(tx pgx.Tx) error { return lockedOrder(ctx, tx, space, fn) })
}

func lockedOrder(ctx context.Context, tx pgx.Tx, space string, fn func(tx pgx.Tx, order []NoteOrder) error) error {
	if _, err := tx.Exec(ctx, notesLockSQL, space); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, "SELECT id, section FROM note_pages WHERE space = $1 ORDER BY position", space)
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
	if errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "note_pages_space_title_key" {
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

// LinkedNotePagesByKey returns the pages of space linked to the session
// with key, in page order.
func LinkedNotePagesByKey(ctx context.Context, q Querier, space, key string) ([]NotePage, error) {
	rows, err := q.Query(ctx, linkedNotePagesByKey, key, space)
	if err != nil {
		return nil, fmt.Errorf("linked note pages of %q: %w", key, err)
	}
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[NotePage])
	if err != nil {
		return nil, fmt.Errorf("linked note pages of %q: %w", key, err)
	}
	return ps, nil
}

const (
	notesIndexByKey = `
SELECT p.id, p.title, p.section, left(p.content, 40) AS head,
       EXISTS (SELECT 1 FROM session_note_pages l JOIN sessions s ON s.id = l.session_id
               WHERE s.key = $1 AND s.deleted_at IS NULL AND l.page_id = p.id) AS linked
FROM note_pages p WHERE p.space = $3 ORDER BY p.position LIMIT $2`
	linkedNotePagesByKey = `
SELECT p.id, p.space, p.title, p.content, p.section, p.position, p.created_at, p.updated_at
FROM note_pages p JOIN session_note_pages l ON l.page_id = p.id JOIN sessions s ON s.id = l.session_id
WHERE s.key = $1 AND s.deleted_at IS NULL AND p.space = $2 ORDER BY p.position`
)

// QueueNotesIndexByKey queues on b up to limit pages of space in order, each
// with the start of its content and whether the session with key linked
// it, into dst.
func QueueNotesIndexByKey(b *Batch, space, key string, limit int, dst *[]NoteIndexItem) {
	queueRows(b, "notes index for "+key, dst, notesIndexByKey, key, limit, space)
}

// QueueLinkedNotePagesByKey queues LinkedNotePagesByKey on b, into dst.
func QueueLinkedNotePagesByKey(b *Batch, space, key string, dst *[]NotePage) {
	queueRows(b, "linked note pages of "+key, dst, linkedNotePagesByKey, key, space)
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

// SetSessionNotePages makes pageIDs exactly the pages linked to a session,
// in one transaction; an id that is no page of the session's space is
// ErrNotFound and changes nothing.
func SetSessionNotePages(ctx context.Context, b TxBeginner, sessionID int64, pageIDs []int64) error {
	err := pgx.BeginFunc(ctx, b, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM session_note_pages WHERE session_id = $1 AND page_id <> ALL($2)", sessionID, pageIDs); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO session_note_pages (session_id, page_id)
SELECT $1, p.id FROM note_pages p JOIN sessions s ON s.id = $1 AND s.space = p.space
WHERE p.id = ANY($2) ON CONFLICT DO NOTHING`, sessionID, pageIDs); err != nil {
			return err
		}
		var linked, want int
		if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM session_note_pages WHERE session_id = $1),
       (SELECT count(DISTINCT id) FROM unnest($2::bigint[]) id)`, sessionID, pageIDs).Scan(&linked, &want); err != nil {
			return err
		}
		if linked != want {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set note pages of session %d: %w", sessionID, err)
	}
	return nil
}

// RenameNotePage changes a page's title; a title in use is
// ErrNoteTitleTaken.
func RenameNotePage(ctx context.Context, q Querier, id int64, title string, at time.Time) (NotePage, error) {
	rows, err := q.Query(ctx, "UPDATE note_pages SET title = $2, updated_at = $3 WHERE id = $1 RETURNING "+notePageColumns,
		id, title, utcOrNow(at))
	if err != nil {
		return NotePage{}, fmt.Errorf("rename note page %d: %w", id, err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[NotePage])
	if err != nil {
		return NotePage{}, fmt.Errorf("rename note page %d: %w", id, noteError(err))
	}
	return p, nil
}
