package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// KnowledgeEntry is a row of knowledge_entries: what the bot learnt from a
// web search, summarised.
type KnowledgeEntry struct {
	ID         int64     `db:"id"`
	Space      string    `db:"space"` // the space of the conversation that searched
	Title      string    `db:"title"`
	Body       string    `db:"body"`
	Query      string    `db:"query"`       // the search that found it
	Tool       string    `db:"tool"`        // web_search, search_and_fetch
	SessionKey string    `db:"session_key"` // the conversation that searched
	FilePath   string    `db:"file_path"`   // its Markdown file, relative to the knowledge base
	CreatedAt  time.Time `db:"created_at"`
}

// KnowledgeSource is a row of knowledge_sources: a page an entry came from.
type KnowledgeSource struct {
	EntryID  int64  `db:"entry_id"`
	Position int    `db:"position"`
	URL      string `db:"url"`
	Title    string `db:"title"`
}

// KnowledgeParams describes an entry to insert with its sources.
type KnowledgeParams struct {
	Space      string // required
	Title      string // required
	Body       string
	Query      string
	Tool       string
	SessionKey string
	Sources    []KnowledgeSource // EntryID and Position are filled in
	CreatedAt  time.Time         // zero means now
}

const knowledgeColumns = "id, space, title, body, query, tool, session_key, file_path, created_at"

// InsertKnowledge stores an entry and its sources. Call it in a transaction
// to keep both or neither.
func InsertKnowledge(ctx context.Context, q Querier, p KnowledgeParams) (KnowledgeEntry, error) {
	if p.Space == "" {
		return KnowledgeEntry{}, fmt.Errorf("insert knowledge %q: empty space", p.Title)
	}
	rows, err := q.Query(ctx, `
INSERT INTO knowledge_entries (space, title, body, query, tool, session_key, created_at)
VALUES ($7, $1, $2, $3, $4, $5, $6) RETURNING `+knowledgeColumns,
		p.Title, p.Body, p.Query, p.Tool, p.SessionKey, utcOrNow(p.CreatedAt), p.Space)
	if err != nil {
		return KnowledgeEntry{}, fmt.Errorf("insert knowledge %q: %w", p.Title, err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[KnowledgeEntry])
	if err != nil {
		return KnowledgeEntry{}, fmt.Errorf("insert knowledge %q: %w", p.Title, interpretError(err))
	}
	urls, titles := make([]string, len(p.Sources)), make([]string, len(p.Sources))
	for i, s := range p.Sources {
		urls[i], titles[i] = s.URL, s.Title
	}
	if _, err := q.Exec(ctx, `
INSERT INTO knowledge_sources (entry_id, position, url, title)
SELECT $1, s.ord - 1, s.url, s.title FROM unnest($2::text[], $3::text[]) WITH ORDINALITY s(url, title, ord)`,
		e.ID, urls, titles); err != nil {
		return KnowledgeEntry{}, fmt.Errorf("insert sources of knowledge %d: %w", e.ID, err)
	}
	return e, nil
}

// SetKnowledgeFile records where an entry's Markdown file was written.
func SetKnowledgeFile(ctx context.Context, q Querier, id int64, path string) error {
	tag, err := q.Exec(ctx, "UPDATE knowledge_entries SET file_path = $2 WHERE id = $1", id, path)
	if err != nil {
		return fmt.Errorf("set file of knowledge %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set file of knowledge %d: %w", id, ErrNotFound)
	}
	return nil
}

// KnowledgeByID returns an entry of any space and its sources in order, or
// ErrNotFound. Callers acting for a conversation compare its Space with theirs.
func KnowledgeByID(ctx context.Context, q Querier, id int64) (KnowledgeEntry, []KnowledgeSource, error) {
	rows, err := q.Query(ctx, "SELECT "+knowledgeColumns+" FROM knowledge_entries WHERE id = $1", id)
	if err != nil {
		return KnowledgeEntry{}, nil, fmt.Errorf("get knowledge %d: %w", id, err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[KnowledgeEntry])
	if err != nil {
		return KnowledgeEntry{}, nil, fmt.Errorf("get knowledge %d: %w", id, interpretError(err))
	}
	rows, err = q.Query(ctx, "SELECT entry_id, position, url, title FROM knowledge_sources WHERE entry_id = $1 ORDER BY position", id)
	if err != nil {
		return KnowledgeEntry{}, nil, fmt.Errorf("sources of knowledge %d: %w", id, err)
	}
	srcs, err := pgx.CollectRows(rows, pgx.RowToStructByName[KnowledgeSource])
	if err != nil {
		return KnowledgeEntry{}, nil, fmt.Errorf("sources of knowledge %d: %w", id, err)
	}
	return e, srcs, nil
}

// KnowledgeHeading is an entry's id, title and date, for the context's list.
type KnowledgeHeading struct {
	ID        int64     `db:"id"`
	Title     string    `db:"title"`
	CreatedAt time.Time `db:"created_at"`
}

const latestKnowledge = `SELECT id, title, created_at FROM knowledge_entries
WHERE space = $2 ORDER BY created_at DESC, id DESC LIMIT $1`

// QueueLatestKnowledge queues on b the headings of the newest limit entries
// of space, newest first, into dst.
func QueueLatestKnowledge(b *Batch, space string, limit int, dst *[]KnowledgeHeading) {
	queueRows(b, "latest knowledge", dst, latestKnowledge, limit, space)
}

// UnfiledKnowledgeDir is the folder, in the knowledge base, of the web
// findings written before spaces had folders of their own.
const UnfiledKnowledgeDir = "web_search"

// UnfiledKnowledge returns the entries whose file lies directly in
// UnfiledKnowledgeDir (knowledge_entries_unfiled_idx, which holds only
// those).
func UnfiledKnowledge(ctx context.Context, q Querier) ([]KnowledgeEntry, error) {
	rows, err := q.Query(ctx, "SELECT "+knowledgeColumns+` FROM knowledge_entries
WHERE file_path LIKE 'web\_search/%' AND file_path NOT LIKE 'web\_search/%/%' ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("unfiled knowledge in %s: %w", UnfiledKnowledgeDir, err)
	}
	es, err := pgx.CollectRows(rows, pgx.RowToStructByName[KnowledgeEntry])
	if err != nil {
		return nil, fmt.Errorf("unfiled knowledge in %s: %w", UnfiledKnowledgeDir, err)
	}
	return es, nil
}

// ListKnowledge returns up to limit entries (without bodies) with an id
// below before, newest first.
func ListKnowledge(ctx context.Context, q Querier, before int64, limit int) ([]KnowledgeEntry, error) {
	rows, err := q.Query(ctx, `SELECT id, space, title, '' AS body, query, tool, session_key, file_path, created_at
FROM knowledge_entries WHERE id < $1 ORDER BY id DESC LIMIT $2`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("list knowledge: %w", err)
	}
	es, err := pgx.CollectRows(rows, pgx.RowToStructByName[KnowledgeEntry])
	if err != nil {
		return nil, fmt.Errorf("list knowledge: %w", err)
	}
	return es, nil
}

// DeleteKnowledge removes an entry and its sources and returns it, or
// reports ErrNotFound.
func DeleteKnowledge(ctx context.Context, q Querier, id int64) (KnowledgeEntry, error) {
	rows, err := q.Query(ctx, "DELETE FROM knowledge_entries WHERE id = $1 RETURNING "+knowledgeColumns, id)
	if err != nil {
		return KnowledgeEntry{}, fmt.Errorf("delete knowledge %d: %w", id, err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[KnowledgeEntry])
	if err != nil {
		return KnowledgeEntry{}, fmt.Errorf("delete knowledge %d: %w", id, interpretError(err))
	}
	return e, nil
}

// RecentKnowledgeFrom returns the newest entry of space learnt since from
// the same query and the same source URLs (in any order): a search whose
// result is already known. ErrNotFound when there is none.
func RecentKnowledgeFrom(ctx context.Context, q Querier, space, query string, urls []string, since time.Time) (KnowledgeEntry, error) {
	if urls == nil {
		urls = []string{}
	}
	rows, err := q.Query(ctx, `
SELECT `+knowledgeColumns+` FROM knowledge_entries e
WHERE space = $1 AND query = $2 AND created_at >= $4
  AND ARRAY(SELECT url FROM knowledge_sources s WHERE s.entry_id = e.id ORDER BY url)
      = ARRAY(SELECT u FROM unnest($3::text[]) u ORDER BY u)
ORDER BY created_at DESC, id DESC LIMIT 1`, space, query, urls, since.UTC())
	if err != nil {
		return KnowledgeEntry{}, fmt.Errorf("knowledge from query %q: %w", query, err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[KnowledgeEntry])
	if err != nil {
		return KnowledgeEntry{}, fmt.Errorf("knowledge from query %q: %w", query, interpretError(err))
	}
	return e, nil
}
