package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SpaceSummary is one space as the admin page lists it: whose memory it is
// and how much of it there is.
type SpaceSummary struct {
	Key       string `db:"key" json:"key"` // "guild:<id>", "dm:<user id>", "web"
	Sessions  int    `db:"sessions" json:"sessions"`
	Notes     int    `db:"notes" json:"notes"`
	Knowledge int    `db:"knowledge" json:"knowledge"`
}

// ListSpaces returns every space that has a conversation, a note page or a
// knowledge entry (and the web space), servers first, then DM users, then
// the web space.
func ListSpaces(ctx context.Context, q Querier) ([]SpaceSummary, error) {
	rows, err := q.Query(ctx, `
WITH sp AS (SELECT key FROM spaces UNION SELECT space FROM note_pages UNION SELECT space FROM knowledge_entries)
SELECT sp.key,
       (SELECT count(*) FROM sessions s WHERE s.space = sp.key AND s.deleted_at IS NULL) AS sessions,
       (SELECT count(*) FROM note_pages p WHERE p.space = sp.key) AS notes,
       (SELECT count(*) FROM knowledge_entries k WHERE k.space = sp.key) AS knowledge
FROM sp
ORDER BY CASE WHEN sp.key LIKE 'guild:%' THEN 0 WHEN sp.key LIKE 'dm:%' THEN 1 ELSE 2 END, sp.key`)
	if err != nil {
		return nil, fmt.Errorf("list spaces: %w", err)
	}
	ss, err := pgx.CollectRows(rows, pgx.RowToStructByName[SpaceSummary])
	if err != nil {
		return nil, fmt.Errorf("list spaces: %w", err)
	}
	return ss, nil
}
