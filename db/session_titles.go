package db

import (
	"context"
	"fmt"
)

// SessionTitle is what a list that names sessions by key (the call logs)
// shows of each.
type SessionTitle struct {
	ID     int64  `db:"id"`
	Key    string `db:"key"`
	Title  string `db:"title"`
	Source string `db:"source"`
}

// SessionTitlesByKeys returns the sessions among keys that exist and are
// not deleted, by key.
func SessionTitlesByKeys(ctx context.Context, q Querier, keys []string) (map[string]SessionTitle, error) {
	out := map[string]SessionTitle{}
	if len(keys) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `SELECT id, key, title, source FROM sessions WHERE key = ANY($1) AND deleted_at IS NULL`, keys)
	if err != nil {
		return nil, fmt.Errorf("titles of %d sessions: %w", len(keys), err)
	}
	defer rows.Close()
	for rows.Next() {
		var t SessionTitle
		if err := rows.Scan(&t.ID, &t.Key, &t.Title, &t.Source); err != nil {
			return nil, fmt.Errorf("titles of %d sessions: %w", len(keys), err)
		}
		out[t.Key] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("titles of %d sessions: %w", len(keys), err)
	}
	return out, nil
}
