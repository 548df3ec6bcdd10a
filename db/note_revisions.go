package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// MaxNoteRevisions is how many earlier versions of a page are kept; older
// ones are dropped as new ones arrive.
const MaxNoteRevisions = 20

// Revision actions: what happened to the text a revision keeps.
const (
	RevisionReplace = "replace" // the page's text was replaced
	RevisionDelete  = "delete"  // the page was deleted
	RevisionRestore = "restore" // an older revision was restored over it
)

// NoteEditor says who changes a page, for its revisions.
type NoteEditor struct {
	Name       string    // a user's name, "admin", …
	SessionKey string    // the conversation that changed it, if any
	At         time.Time // zero means now
}

// NoteRevision is a row of note_revisions: the text a page had before it was
// replaced or deleted, who did it and when.
type NoteRevision struct {
	ID         int64     `db:"id" json:"id"`
	PageID     int64     `db:"page_id" json:"page_id"`
	Space      string    `db:"space" json:"space"`
	Title      string    `db:"title" json:"title"`
	Section    string    `db:"section" json:"section"`
	Content    string    `db:"content" json:"content"` // the text before the change
	Action     string    `db:"action" json:"action"`
	ChangedBy  string    `db:"changed_by" json:"changed_by"`
	SessionKey string    `db:"session_key" json:"session_key"`
	CreatedAt  time.Time `db:"created_at" json:"created_at"` // when it was changed
}

const noteRevisionColumns = "id, page_id, space, title, section, content, action, changed_by, session_key, created_at"

// saveRevision keeps p's current text as a revision and drops the page's
// revisions beyond MaxNoteRevisions. Call it in the transaction that changes p.
func saveRevision(ctx context.Context, tx pgx.Tx, p NotePage, action string, ed NoteEditor) error {
	if _, err := tx.Exec(ctx, `
INSERT INTO note_revisions (page_id, space, title, section, content, action, changed_by, session_key, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		p.ID, p.Space, p.Title, p.Section, p.Content, action, ed.Name, ed.SessionKey, utcOrNow(ed.At)); err != nil {
		return fmt.Errorf("keep revision of note page %d: %w", p.ID, err)
	}
	if _, err := tx.Exec(ctx, `
DELETE FROM note_revisions WHERE page_id = $1 AND id NOT IN (
    SELECT id FROM note_revisions WHERE page_id = $1 ORDER BY id DESC LIMIT $2)`, p.ID, MaxNoteRevisions); err != nil {
		return fmt.Errorf("drop old revisions of note page %d: %w", p.ID, err)
	}
	return nil
}

// NoteRevisions returns the kept revisions of page id, newest first (also
// after the page was deleted).
func NoteRevisions(ctx context.Context, q Querier, pageID int64) ([]NoteRevision, error) {
	rows, err := q.Query(ctx, "SELECT "+noteRevisionColumns+" FROM note_revisions WHERE page_id = $1 ORDER BY id DESC", pageID)
	if err != nil {
		return nil, fmt.Errorf("revisions of note page %d: %w", pageID, err)
	}
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[NoteRevision])
	if err != nil {
		return nil, fmt.Errorf("revisions of note page %d: %w", pageID, err)
	}
	return rs, nil
}

// NoteRevisionByID returns a revision, or ErrNotFound.
func NoteRevisionByID(ctx context.Context, q Querier, id int64) (NoteRevision, error) {
	rows, err := q.Query(ctx, "SELECT "+noteRevisionColumns+" FROM note_revisions WHERE id = $1", id)
	if err != nil {
		return NoteRevision{}, fmt.Errorf("get note revision %d: %w", id, err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[NoteRevision])
	if err != nil {
		return NoteRevision{}, fmt.Errorf("get note revision %d: %w", id, interpretError(err))
	}
	return r, nil
}

// RestoreNoteRevision puts the text of revision revID back on its page (the
// text replaced is kept as a revision in turn). A deleted page comes back at
// the end of its section, under its title, and keeps its revisions; a page
// that took that title since is ErrNoteTitleTaken.
func RestoreNoteRevision(ctx context.Context, b TxBeginner, revID int64, ed NoteEditor) (NotePage, error) {
	var page NotePage
	err := pgx.BeginFunc(ctx, b, func(tx pgx.Tx) error {
		rev, err := NoteRevisionByID(ctx, tx, revID)
		if err != nil {
			return err
		}
		cur, err := onePage(ctx, tx, "id = $1 FOR UPDATE", fmt.Sprint(rev.PageID), rev.PageID)
		switch {
		case err == nil:
			if err := saveRevision(ctx, tx, cur, RevisionRestore, ed); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, "UPDATE note_pages SET content = $2, updated_at = $3 WHERE id = $1 RETURNING "+notePageColumns,
				cur.ID, rev.Content, utcOrNow(ed.At))
			if err != nil {
				return err
			}
			page, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[NotePage])
			return err
		case !errors.Is(err, ErrNotFound):
			return err
		}
		// The page was deleted: make it again, in the same transaction.
		return lockedOrder(ctx, tx, rev.Space, func(tx pgx.Tx, order []NoteOrder) error {
			var id int64
			err := tx.QueryRow(ctx, `INSERT INTO note_pages (space, title, content, section, position)
VALUES ($1, $2, $3, $4, (SELECT count(*) FROM note_pages WHERE space = $1)) RETURNING id`,
				rev.Space, rev.Title, rev.Content, rev.Section).Scan(&id)
			if err != nil {
				return noteError(err)
			}
			if err := writeOrder(ctx, tx, insertAtSectionEnd(order, NoteOrder{ID: id, Section: rev.Section})); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "UPDATE note_revisions SET page_id = $2 WHERE page_id = $1", rev.PageID, id); err != nil {
				return err
			}
			page, err = NotePageByID(ctx, tx, id)
			return err
		})
	})
	if err != nil {
		return NotePage{}, fmt.Errorf("restore note revision %d: %w", revID, err)
	}
	return page, nil
}
