package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// APILog is a row of api_logs: one LLM call.
type APILog struct {
	ID               int64     `db:"id"`
	Model            string    `db:"model"`
	Request          []byte    `db:"request"` // JSON, nil when none was recorded
	Response         string    `db:"response"`
	Error            string    `db:"error"`
	LatencyMS        int64     `db:"latency_ms"`
	PromptTokens     int       `db:"prompt_tokens"`
	CompletionTokens int       `db:"completion_tokens"`
	SessionKey       string    `db:"session_key"` // the conversation served; empty for housekeeping
	CreatedAt        time.Time `db:"created_at"`
	Space            string    `db:"space"`   // the turn's space; "" outside one
	TurnID           string    `db:"turn_id"` // empty outside a user's turn
	Kind             string    `db:"kind"`    // reply, summary, tags, …
}

// APILogParams describes an LLM call to log.
type APILogParams struct {
	Space string // the space of the turn that made the call; "" outside one
	Model string
	// Request is stored as JSON: any value is marshalled (e.g. an
	// *api.ChatRequest); json.RawMessage and []byte are stored as they are;
	// nil stores NULL.
	Request          any
	Response         string
	Error            string // empty when the call succeeded
	Latency          time.Duration
	PromptTokens     int
	CompletionTokens int
	SessionKey       string    // the conversation the call served, if any
	CreatedAt        time.Time // zero means now
	TurnID           string    // the turn the call served, if any
	Kind             string    // what the call was for (llm.Kind…)
}

const apiLogColumns = "id, model, request, response, error, latency_ms, prompt_tokens, completion_tokens, session_key, created_at, turn_id, kind, space"

// InsertAPILog records one LLM call.
func InsertAPILog(ctx context.Context, q Querier, p APILogParams) error {
	_, err := q.Exec(ctx, `
INSERT INTO api_logs (model, request, response, error, latency_ms, prompt_tokens, completion_tokens, created_at, turn_id, kind, space, session_key)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		p.Model, jsonArg(p.Request), p.Response, p.Error, p.Latency.Milliseconds(),
		p.PromptTokens, p.CompletionTokens, utcOrNow(p.CreatedAt), p.TurnID, p.Kind, p.Space, p.SessionKey)
	if err != nil {
		return fmt.Errorf("insert api log for model %q: %w", p.Model, err)
	}
	return nil
}

// jsonArg lets pgx encode v as jsonb, passing raw JSON bytes through.
func jsonArg(v any) any {
	switch b := v.(type) {
	case nil:
		return nil
	case []byte:
		if b == nil {
			return nil
		}
		return string(b)
	}
	return v
}

// RecentAPILogs returns up to limit of the newest API logs, newest first.
func RecentAPILogs(ctx context.Context, q Querier, limit int) ([]APILog, error) {
	rows, err := q.Query(ctx, `
SELECT `+apiLogColumns+`
FROM api_logs ORDER BY created_at DESC, id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("recent api logs: %w", err)
	}
	logs, err := pgx.CollectRows(rows, pgx.RowToStructByName[APILog])
	if err != nil {
		return nil, fmt.Errorf("recent api logs: %w", err)
	}
	return logs, nil
}

// APILogItem is one line of the logs list: an APILog without its bodies.
type APILogItem struct {
	ID               int64     `db:"id" json:"id"`
	Model            string    `db:"model" json:"model"`
	Error            string    `db:"error" json:"error"`
	LatencyMS        int64     `db:"latency_ms" json:"latency_ms"`
	PromptTokens     int       `db:"prompt_tokens" json:"prompt_tokens"`
	CompletionTokens int       `db:"completion_tokens" json:"completion_tokens"`
	SessionKey       string    `db:"session_key" json:"session_key"`
	CreatedAt        time.Time `db:"created_at" json:"created_at"`
	TurnID           string    `db:"turn_id" json:"turn_id"`
	Kind             string    `db:"kind" json:"kind"`
	Space            string    `db:"space" json:"space"`
}

// APILogsBefore returns up to limit logs with an id below before, newest
// first: keyset pages, each an index range scan however deep it goes.
func APILogsBefore(ctx context.Context, q Querier, before int64, limit int) ([]APILogItem, error) {
	rows, err := q.Query(ctx, `
SELECT id, model, error, latency_ms, prompt_tokens, completion_tokens, session_key, created_at, turn_id, kind, space
FROM api_logs WHERE id < $1 ORDER BY id DESC LIMIT $2`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("api logs before %d: %w", before, err)
	}
	logs, err := pgx.CollectRows(rows, pgx.RowToStructByName[APILogItem])
	if err != nil {
		return nil, fmt.Errorf("api logs before %d: %w", before, err)
	}
	return logs, nil
}

// APILogByID returns one log with its bodies, or ErrNotFound.
func APILogByID(ctx context.Context, q Querier, id int64) (APILog, error) {
	rows, err := q.Query(ctx, "SELECT "+apiLogColumns+" FROM api_logs WHERE id = $1", id)
	if err != nil {
		return APILog{}, fmt.Errorf("get api log %d: %w", id, err)
	}
	l, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[APILog])
	if err != nil {
		return APILog{}, fmt.Errorf("get api log %d: %w", id, interpretError(err))
	}
	return l, nil
}

// DeleteAPILog removes one log, or reports ErrNotFound.
func DeleteAPILog(ctx context.Context, q Querier, id int64) error {
	tag, err := q.Exec(ctx, "DELETE FROM api_logs WHERE id = $1", id)
	if err != nil {
		return fmt.Errorf("delete api log %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete api log %d: %w", id, ErrNotFound)
	}
	return nil
}
