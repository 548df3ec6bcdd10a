package db

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

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

// MaxAPILogBody bounds the stored request and the stored response of one
// call, each: a long conversation's full request would otherwise be kept in
// every row of it.
const MaxAPILogBody = 64 << 10

// InsertAPILog records one LLM call. A request or response longer than
// MaxAPILogBody is cut and marked: the response ends with a note giving its
// full size; a request is stored as {"truncated": true, "bytes": n,
// "head": "<its first bytes as text>"}, still JSON.
func InsertAPILog(ctx context.Context, q Querier, p APILogParams) error {
	req, err := capRequest(jsonArg(p.Request))
	if err != nil {
		return fmt.Errorf("insert api log for model %q: %w", p.Model, err)
	}
	p.Request, p.Response = req, capText(p.Response, MaxAPILogBody)
	// The log is a record written at the end of every model call, on the
	// turn's path: its commit does not wait for the WAL to reach the disk
	// (a database crash may forget the last calls' records, nothing else).
	_, err = q.Exec(ctx, `
INSERT INTO api_logs (model, request, response, error, latency_ms, prompt_tokens, completion_tokens, created_at, turn_id, kind, space, session_key)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12
FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`,
		p.Model, p.Request, p.Response, p.Error, p.Latency.Milliseconds(),
		p.PromptTokens, p.CompletionTokens, utcOrNow(p.CreatedAt), p.TurnID, p.Kind, p.Space, p.SessionKey)
	if err != nil {
		return fmt.Errorf("insert api log for model %q: %w", p.Model, err)
	}
	return nil
}

// capRequest returns the request to store: as it is when short, else a
// marked JSON object holding its head.
func capRequest(v any) (any, error) {
	var raw string
	switch b := v.(type) {
	case nil:
		return nil, nil
	case string:
		raw = b
	default:
		m, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		raw = string(m)
	}
	if raw == "null" { // a nil pointer: nothing recorded
		return nil, nil
	}
	if len(raw) <= MaxAPILogBody {
		return raw, nil
	}
	// The wrapper's own fields and the escaping of the head must fit too.
	head := raw[:MaxAPILogBody/2]
	for !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	out, err := json.Marshal(map[string]any{"truncated": true, "bytes": len(raw), "head": head})
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	for len(out) > MaxAPILogBody { // a head full of escapes
		head = strings.ToValidUTF8(head[:len(head)*3/4], "")
		if out, err = json.Marshal(map[string]any{"truncated": true, "bytes": len(raw), "head": head}); err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
	}
	return string(out), nil
}

// capText cuts s to at most limit bytes on a character boundary, marked
// with a note of its full size.
func capText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	note := fmt.Sprintf("\n…[truncated: %d bytes in all]", len(s))
	cut := limit - len(note)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note
}

// PruneAPILogs deletes the logs created before cutoff, in batches so no
// long lock holds up new logs, and returns how many went.
func PruneAPILogs(ctx context.Context, q Querier, cutoff time.Time) (int64, error) {
	var total int64
	for {
		tag, err := q.Exec(ctx, `
DELETE FROM api_logs WHERE id IN (SELECT id FROM api_logs WHERE created_at < $1 LIMIT 5000)`, cutoff.UTC())
		if err != nil {
			return total, fmt.Errorf("prune api logs before %s: %w", cutoff.UTC().Format(time.RFC3339), err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < 5000 {
			return total, nil
		}
	}
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

// TurnCounts sum up the model calls of a period: how many users' turns
// reached the model, how many of them failed, and the tokens of every call.
type TurnCounts struct {
	Turns  int // turns with a reply call
	Failed int // of them, turns with a reply call that failed (a cancelled one is not a failure)
	// PromptTokens and CompletionTokens are over every recorded call of the
	// period, housekeeping and jobs included (embeddings are not recorded).
	PromptTokens, CompletionTokens int64
}

// CountTurnsSince counts the turns and tokens of the calls made since, over
// every process sharing the database.
func CountTurnsSince(ctx context.Context, q Querier, since time.Time) (TurnCounts, error) {
	var c TurnCounts
	// A call cut short by a shutdown records its context's error last
	// ("chat MODEL: context canceled"); that is no failure of the turn.
	err := q.QueryRow(ctx, `
WITH calls AS (
    SELECT turn_id, kind, error, prompt_tokens, completion_tokens
    FROM api_logs WHERE created_at >= $1
), turns AS (
    SELECT bool_or(error <> '' AND error NOT LIKE '%context canceled') AS failed
    FROM calls WHERE kind = 'reply' AND turn_id <> '' GROUP BY turn_id
)
SELECT (SELECT count(*) FROM turns),
       (SELECT count(*) FROM turns WHERE failed),
       (SELECT coalesce(sum(prompt_tokens), 0) FROM calls),
       (SELECT coalesce(sum(completion_tokens), 0) FROM calls)`, since.UTC()).
		Scan(&c.Turns, &c.Failed, &c.PromptTokens, &c.CompletionTokens)
	if err != nil {
		return TurnCounts{}, fmt.Errorf("count turns since %s: %w", since.UTC().Format(time.RFC3339), err)
	}
	return c, nil
}
