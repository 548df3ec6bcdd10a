package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestAPILogs(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

	tests := []struct {
		name        string
		request     any
		wantRequest string // as JSON, "" for NULL
	}{
		{"struct is marshalled", struct {
			Model string `json:"model"`
		}{"qwen3:4b"}, `{"model": "qwen3:4b"}`},
		{"raw JSON passes through", json.RawMessage(`{"stream":true}`), `{"stream": true}`},
		{"bytes pass through", []byte(`[1,2]`), `[1, 2]`},
		{"nil stores NULL", nil, ""},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := db.InsertAPILog(ctx, pool, db.APILogParams{
				Model: tc.name, Request: tc.request, Response: "こんにちは", Error: "",
				Latency: 1500 * time.Millisecond, PromptTokens: 10, CompletionTokens: 20,
				CreatedAt: t0.Add(time.Duration(i) * time.Minute), TurnID: "turn-" + tc.name, Kind: "reply",
			})
			if err != nil {
				t.Fatal(err)
			}
			var got *string
			if err := pool.QueryRow(ctx, "SELECT request::text FROM api_logs WHERE model = $1", tc.name).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tc.wantRequest == "") || (got != nil && *got != tc.wantRequest) {
				t.Errorf("request stored as %v; want %q", got, tc.wantRequest)
			}
		})
	}

	logs, err := db.APILogsBefore(ctx, pool, math.MaxInt64, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 || logs[0].Model != "nil stores NULL" || logs[1].Model != "bytes pass through" {
		t.Fatalf("APILogsBefore = %+v; want the two newest, newest first", logs)
	}
	l, err := db.APILogByID(ctx, pool, logs[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if l.LatencyMS != 1500 || l.PromptTokens != 10 || l.CompletionTokens != 20 || l.Response != "こんにちは" ||
		!l.CreatedAt.Equal(t0.Add(2*time.Minute)) || l.CreatedAt.Location() != time.UTC || string(l.Request) != `[1, 2]` ||
		l.TurnID != "turn-bytes pass through" || l.Kind != "reply" {
		t.Errorf("log = %+v", l)
	}
}

// Bodies over 64 KB are cut and marked; the request stays valid JSON.
func TestAPILogBodiesCapped(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	long := strings.Repeat("長い会話です。", 20000) // 420,000 bytes
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	tests := []struct {
		name     string
		request  any
		response string
		cut      bool
	}{
		{"short bodies are kept whole", msg{"user", "こんにちは"}, "どうも", false},
		{"long bodies are cut and marked", msg{"user", long}, long, true},
		{"a head full of escapes still fits", json.RawMessage(`["` + strings.Repeat(`\"`, 100000) + `"]`), "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := db.InsertAPILog(ctx, pool, db.APILogParams{Model: tc.name, Request: tc.request, Response: tc.response})
			if err != nil {
				t.Fatal(err)
			}
			var req, resp string
			if err := pool.QueryRow(ctx, "SELECT request::text, response FROM api_logs WHERE model = $1", tc.name).Scan(&req, &resp); err != nil {
				t.Fatal(err)
			}
			if len(req) > db.MaxAPILogBody+db.MaxAPILogBody/4 || len(resp) > db.MaxAPILogBody {
				t.Errorf("stored %d request bytes, %d response bytes; want about %d at most", len(req), len(resp), db.MaxAPILogBody)
			}
			if !utf8.ValidString(resp) {
				t.Error("the response was cut inside a character")
			}
			var wrapped struct {
				Truncated bool   `json:"truncated"`
				Bytes     int    `json:"bytes"`
				Head      string `json:"head"`
			}
			json.Unmarshal([]byte(req), &wrapped)
			if wrapped.Truncated != tc.cut {
				t.Errorf("request truncated = %v, want %v (stored %.80s…)", wrapped.Truncated, tc.cut, req)
			}
			if tc.cut && (wrapped.Bytes < db.MaxAPILogBody || wrapped.Head == "") {
				t.Errorf("cut request: %d bytes noted, head %d bytes; want the full size and a head", wrapped.Bytes, len(wrapped.Head))
			}
			if tc.cut && tc.response != "" && !strings.HasSuffix(resp, fmt.Sprintf("…[truncated: %d bytes in all]", len(tc.response))) {
				t.Errorf("cut response ends %q, want the truncation mark", resp[len(resp)-60:])
			}
			if !tc.cut && resp != tc.response {
				t.Errorf("response = %q, want it whole", resp)
			}
		})
	}
}

// Logs older than the cutoff go; newer ones stay.
func TestPruneAPILogs(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i, age := range []time.Duration{40 * 24 * time.Hour, 31 * 24 * time.Hour, 29 * 24 * time.Hour, time.Hour} {
		err := db.InsertAPILog(ctx, pool, db.APILogParams{Model: fmt.Sprint("m", i), Response: "x", CreatedAt: now.Add(-age)})
		if err != nil {
			t.Fatal(err)
		}
	}
	n, err := db.PruneAPILogs(ctx, pool, now.Add(-30*24*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	logs, err := db.APILogsBefore(ctx, pool, math.MaxInt64, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 || logs[0].Model != "m3" || logs[1].Model != "m2" {
		t.Errorf("kept %+v; want m3 and m2", logs)
	}
}

// TestCountTurnsSince: a turn is counted once however many calls it made;
// it failed when one of its reply calls did, but not when it was cut short
// by a shutdown; housekeeping calls add tokens, not turns.
func TestCountTurnsSince(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	since := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		turn, kind, err string
		at              time.Duration
		prompt, compl   int
	}{
		{"a", "reply", "", time.Minute, 100, 10},
		{"a", "reply", "", 2 * time.Minute, 150, 20},
		{"b", "reply", "chat m: model unavailable: connection refused", 3 * time.Minute, 0, 0},
		{"c", "reply", "chat m: context canceled", 4 * time.Minute, 0, 0},
		{"", "summary", "", 5 * time.Minute, 300, 40},
		{"old", "reply", "chat m: boom", -time.Minute, 1000, 1000},
	} {
		if err := db.InsertAPILog(ctx, pool, db.APILogParams{Model: "m", TurnID: c.turn, Kind: c.kind, Error: c.err,
			PromptTokens: c.prompt, CompletionTokens: c.compl, CreatedAt: since.Add(c.at)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.CountTurnsSince(ctx, pool, since)
	if err != nil {
		t.Fatal(err)
	}
	want := db.TurnCounts{Turns: 3, Failed: 1, PromptTokens: 550, CompletionTokens: 70}
	if got != want {
		t.Errorf("CountTurnsSince = %+v, want %+v", got, want)
	}
	if got, err := db.CountTurnsSince(ctx, pool, since.Add(time.Hour)); err != nil || got != (db.TurnCounts{}) {
		t.Errorf("an empty period = %+v, %v; want zeros", got, err)
	}
}

// BenchmarkCountTurnsSince: /stats over a month of model call logs (100,000
// rows 26 s apart, about 140 in the last hour) must answer well within the
// 3 seconds Discord gives an interaction.
func BenchmarkCountTurnsSince(b *testing.B) {
	ctx := context.Background()
	pool := dbtest.New(b)
	if _, err := pool.Exec(ctx, `
INSERT INTO api_logs (model, kind, turn_id, prompt_tokens, completion_tokens, created_at)
SELECT 'm', CASE WHEN i % 5 = 0 THEN 'summary' ELSE 'reply' END, 'turn-' || (i / 2), 100, 20,
       now() - (i * interval '26 seconds')
FROM generate_series(1, 100000) AS i`); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE api_logs"); err != nil {
		b.Fatal(err)
	}
	since := time.Now().Add(-time.Hour)
	b.ResetTimer()
	for b.Loop() {
		if _, err := db.CountTurnsSince(ctx, pool, since); err != nil {
			b.Fatal(err)
		}
	}
}
