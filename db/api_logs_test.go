package db_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

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

	logs, err := db.RecentAPILogs(ctx, pool, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 || logs[0].Model != "nil stores NULL" || logs[1].Model != "bytes pass through" {
		t.Fatalf("RecentAPILogs = %+v; want the two newest, newest first", logs)
	}
	l := logs[1]
	if l.LatencyMS != 1500 || l.PromptTokens != 10 || l.CompletionTokens != 20 || l.Response != "こんにちは" ||
		!l.CreatedAt.Equal(t0.Add(2*time.Minute)) || l.CreatedAt.Location() != time.UTC || string(l.Request) != `[1, 2]` ||
		l.TurnID != "turn-bytes pass through" || l.Kind != "reply" {
		t.Errorf("log = %+v", l)
	}
}
