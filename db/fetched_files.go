package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// FetchedFile is a row of fetched_files: a document a web tool fetched for
// a conversation, with its extracted text.
type FetchedFile struct {
	ID        int64     `db:"id"`
	SessionID int64     `db:"session_id"`
	URL       string    `db:"url"`
	Title     string    `db:"title"`
	MediaType string    `db:"media_type"`
	SizeBytes int64     `db:"size_bytes"` // of the document as fetched
	Content   string    `db:"content"`    // empty in listings
	Truncated bool      `db:"truncated"`  // Content was cut to the size limit
	Tool      string    `db:"tool"`
	FetchedAt time.Time `db:"fetched_at"`
}

// FetchedFileParams describes a document to keep.
type FetchedFileParams struct {
	SessionID int64  // required
	URL       string // required; the same URL again replaces the entry
	Title     string
	MediaType string
	SizeBytes int64
	Content   string
	Truncated bool
	Tool      string
	At        time.Time // zero means now
}

const fetchedColumns = "id, session_id, url, title, media_type, size_bytes, content, truncated, tool, fetched_at"

// listedFetchedColumns leaves the text out: a listing needs no megabytes.
const listedFetchedColumns = "id, session_id, url, title, media_type, size_bytes, ''::text AS content, truncated, tool, fetched_at"

// UpsertFetchedFile keeps a document for a session; the same URL fetched
// again in the same session updates its one entry.
func UpsertFetchedFile(ctx context.Context, q Querier, p FetchedFileParams) (FetchedFile, error) {
	rows, err := q.Query(ctx, `
INSERT INTO fetched_files (session_id, url, title, media_type, size_bytes, content, truncated, tool, fetched_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (session_id, url) DO UPDATE SET
    title = EXCLUDED.title, media_type = EXCLUDED.media_type, size_bytes = EXCLUDED.size_bytes,
    content = EXCLUDED.content, truncated = EXCLUDED.truncated, tool = EXCLUDED.tool,
    fetched_at = EXCLUDED.fetched_at
RETURNING `+listedFetchedColumns,
		p.SessionID, p.URL, p.Title, p.MediaType, p.SizeBytes, p.Content, p.Truncated, p.Tool, utcOrNow(p.At))
	if err != nil {
		return FetchedFile{}, fmt.Errorf("keep fetched file %q of session %d: %w", p.URL, p.SessionID, err)
	}
	f, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[FetchedFile])
	if err != nil {
		return FetchedFile{}, fmt.Errorf("keep fetched file %q of session %d: %w", p.URL, p.SessionID, interpretError(err))
	}
	return f, nil
}

// FetchedFilesByKey lists the documents of the session with key, newest
// first, without their text.
func FetchedFilesByKey(ctx context.Context, q Querier, key string, limit int) ([]FetchedFile, error) {
	rows, err := q.Query(ctx, `
SELECT `+listedFetchedColumns+` FROM fetched_files
WHERE session_id = (SELECT id FROM sessions WHERE key = $1)
ORDER BY fetched_at DESC, id DESC LIMIT $2`, key, limit)
	if err != nil {
		return nil, fmt.Errorf("list fetched files of session %q: %w", key, err)
	}
	fs, err := pgx.CollectRows(rows, pgx.RowToStructByName[FetchedFile])
	if err != nil {
		return nil, fmt.Errorf("list fetched files of session %q: %w", key, err)
	}
	return fs, nil
}

// FetchedFilesBySession lists the documents of session id, newest first,
// without their text (the admin page). An unknown or deleted session is
// ErrNotFound.
func FetchedFilesBySession(ctx context.Context, q Querier, sessionID int64, limit int) ([]FetchedFile, error) {
	var exists bool
	if err := q.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND deleted_at IS NULL)", sessionID).Scan(&exists); err != nil {
		return nil, fmt.Errorf("list fetched files of session %d: %w", sessionID, err)
	}
	if !exists {
		return nil, fmt.Errorf("list fetched files of session %d: %w", sessionID, ErrNotFound)
	}
	rows, err := q.Query(ctx, `
SELECT `+listedFetchedColumns+` FROM fetched_files WHERE session_id = $1
ORDER BY fetched_at DESC, id DESC LIMIT $2`, sessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("list fetched files of session %d: %w", sessionID, err)
	}
	fs, err := pgx.CollectRows(rows, pgx.RowToStructByName[FetchedFile])
	if err != nil {
		return nil, fmt.Errorf("list fetched files of session %d: %w", sessionID, err)
	}
	return fs, nil
}

// FetchedFileInSession returns document id with its text if it belongs to
// session id, not deleted; any other id is ErrNotFound.
func FetchedFileInSession(ctx context.Context, q Querier, sessionID, id int64) (FetchedFile, error) {
	rows, err := q.Query(ctx, "SELECT "+fetchedColumns+` FROM fetched_files
WHERE id = $1 AND session_id = $2 AND EXISTS (SELECT 1 FROM sessions WHERE id = $2 AND deleted_at IS NULL)`, id, sessionID)
	if err != nil {
		return FetchedFile{}, fmt.Errorf("get fetched file %d: %w", id, err)
	}
	f, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[FetchedFile])
	if err != nil {
		return FetchedFile{}, fmt.Errorf("get fetched file %d: %w", id, interpretError(err))
	}
	return f, nil
}

// FetchedFileByKey returns document id with its text if it belongs to the
// session with key; an id of another conversation is ErrNotFound.
func FetchedFileByKey(ctx context.Context, q Querier, key string, id int64) (FetchedFile, error) {
	rows, err := q.Query(ctx, `
SELECT `+fetchedColumns+` FROM fetched_files
WHERE id = $1 AND session_id = (SELECT id FROM sessions WHERE key = $2)`, id, key)
	if err != nil {
		return FetchedFile{}, fmt.Errorf("get fetched file %d: %w", id, err)
	}
	f, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[FetchedFile])
	if err != nil {
		return FetchedFile{}, fmt.Errorf("get fetched file %d: %w", id, interpretError(err))
	}
	return f, nil
}

const hasFetchedFilesByKey = `
SELECT EXISTS (SELECT 1 FROM fetched_files WHERE session_id = (SELECT id FROM sessions WHERE key = $1))`

// QueueHasFetchedFilesByKey queues on b whether the session with key keeps
// any document, into dst.
func QueueHasFetchedFilesByKey(b *Batch, key string, dst *bool) {
	b.names = append(b.names, "fetched files of session "+key)
	b.b.Queue(hasFetchedFilesByKey, key).QueryRow(func(row pgx.Row) error { return row.Scan(dst) })
}

// DeleteFetchedFilesByKey drops the documents of the session with key (the
// /forget command) and returns how many there were.
func DeleteFetchedFilesByKey(ctx context.Context, q Querier, key string) (int64, error) {
	tag, err := q.Exec(ctx, "DELETE FROM fetched_files WHERE session_id = (SELECT id FROM sessions WHERE key = $1)", key)
	if err != nil {
		return 0, fmt.Errorf("delete fetched files of session %q: %w", key, err)
	}
	return tag.RowsAffected(), nil
}
