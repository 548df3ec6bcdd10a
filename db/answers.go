package db

import (
	"context"
	"encoding/json"
	"fmt"
)

// Activity is what happened while an answer was written, kept with it.
type Activity struct {
	Tools   []ToolCall       `json:"tools,omitempty"`
	Sources []ActivitySource `json:"sources,omitempty"`
	// Stopped is set for an answer a person stopped (停止) before its end.
	Stopped bool `json:"stopped,omitempty"`
}

// ToolCall is one tool the model called: what it was about and the start
// of what it answered.
type ToolCall struct {
	Name       string `json:"name"`
	Detail     string `json:"detail,omitempty"` // the argument that says what the call was about
	Result     string `json:"result,omitempty"` // one line
	Error      bool   `json:"error,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
}

// ActivitySource is a page a search tool found for the answer.
type ActivitySource struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Empty reports whether a holds nothing worth keeping.
func (a Activity) Empty() bool { return len(a.Tools) == 0 && len(a.Sources) == 0 && !a.Stopped }

// SetMessageActivity keeps a with message id, replacing what was kept.
func SetMessageActivity(ctx context.Context, q Querier, id int64, a Activity) error {
	if a.Empty() {
		if _, err := q.Exec(ctx, `DELETE FROM message_activity WHERE message_id = $1`, id); err != nil {
			return fmt.Errorf("clear activity of message %d: %w", id, err)
		}
		return nil
	}
	_, err := q.Exec(ctx, `
INSERT INTO message_activity (message_id, activity) VALUES ($1, $2)
ON CONFLICT (message_id) DO UPDATE SET activity = EXCLUDED.activity`, id, a)
	if err != nil {
		return fmt.Errorf("set activity of message %d: %w", id, err)
	}
	return nil
}

// MessageActivities returns the activity kept with each of the messages ids
// that has any, by message id.
func MessageActivities(ctx context.Context, q Querier, ids []int64) (map[int64]Activity, error) {
	out := map[int64]Activity{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `SELECT message_id, activity FROM message_activity WHERE message_id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("activity of %d messages: %w", len(ids), err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, fmt.Errorf("activity of %d messages: %w", len(ids), err)
		}
		var a Activity
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("activity of message %d: %w", id, err)
		}
		out[id] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("activity of %d messages: %w", len(ids), err)
	}
	return out, nil
}
