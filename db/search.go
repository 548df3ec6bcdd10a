package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// SearchHit is one message that matches a search.
type SearchHit struct {
	MessageID int64     `db:"id"`
	SessionID int64     `db:"session_id"`
	Role      string    `db:"role"`
	Content   string    `db:"content"`
	CreatedAt time.Time `db:"created_at"`
}

// searchWindow is the span of message ids the first search step looks at;
// each further step looks eight times further back. A common term (です)
// matches so many rows that sorting them all would take long; the newest
// matches are found in the newest rows.
const searchWindow = 10_000

// SearchMessages returns the user and assistant messages of every session
// (deleted ones aside) that hold each word of query (split on spaces; case-insensitive), newest
// first, at most limit. A query with nothing to look up (only punctuation)
// finds nothing. See 0021_chat_app.sql for how messages are indexed.
func SearchMessages(ctx context.Context, q Querier, query string, limit int) ([]SearchHit, error) {
	words := strings.Fields(query)
	if len(words) == 0 || limit <= 0 {
		return nil, nil
	}
	var terms []string
	var maxID int64
	if err := q.QueryRow(ctx, `SELECT yorozu_search_terms($1), coalesce((SELECT max(id) FROM messages), 0)`, query).
		Scan(&terms, &maxID); err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	if len(terms) == 0 {
		return nil, nil
	}
	tsq := make([]string, len(terms))
	for i, t := range terms {
		tsq[i] = lexeme(t, isASCIIWord(t))
	}
	likes := make([]string, len(words))
	for i, w := range words {
		likes[i] = "%" + escapeLike(w) + "%"
	}
	var out []SearchHit
	for window := int64(searchWindow); ; window *= 8 {
		lo := maxID - window
		rows, err := q.Query(ctx, `
SELECT m.id, m.session_id, m.role, m.content, m.created_at
FROM message_search s JOIN messages m ON m.id = s.message_id
WHERE s.terms @@ $1::tsquery AND s.message_id > $2
  AND m.role IN ('user', 'assistant') AND m.content ILIKE ALL ($3)
  AND NOT EXISTS (SELECT 1 FROM sessions d WHERE d.id = m.session_id AND d.deleted_at IS NOT NULL)
ORDER BY s.message_id DESC
LIMIT $4`, strings.Join(tsq, " & "), lo, likes, limit)
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", query, err)
		}
		out, err = pgx.CollectRows(rows, pgx.RowToStructByName[SearchHit])
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", query, err)
		}
		if len(out) >= limit || lo <= 0 {
			return out, nil
		}
	}
}

func isASCIIWord(s string) bool {
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'z') {
			return false
		}
	}
	return s != ""
}
