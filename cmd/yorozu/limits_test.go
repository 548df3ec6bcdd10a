package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestAPILogPruneJob: "yorozu jobs run api_log_prune" deletes the model
// call logs older than API_LOG_RETENTION and keeps the rest (the same job
// runs daily on the schedule).
func TestAPILogPruneJob(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url := dbtest.URL(t)
	pool, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := db.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, age := range []time.Duration{30 * 24 * time.Hour, 8 * 24 * time.Hour, 6 * 24 * time.Hour, time.Minute} {
		err := db.InsertAPILog(ctx, pool, db.APILogParams{Model: fmt.Sprint("m", i), Response: "x", CreatedAt: now.Add(-age)})
		if err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"DATABASE_URL": url, "API_LOG_RETENTION": "7d"}
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"jobs", "run", "api_log_prune"}, func(k string) string { return env[k] }, &stdout, &stderr); err != nil {
		t.Fatalf("jobs run api_log_prune: %v\n%s", err, stderr.String())
	}
	logs, err := db.APILogsBefore(ctx, pool, math.MaxInt64, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 || logs[0].Model != "m3" || logs[1].Model != "m2" {
		t.Errorf("kept %d logs %+v; want m3 and m2 (younger than 7 days)", len(logs), logs)
	}
	if !bytes.Contains(stderr.Bytes(), []byte("deleted=2")) {
		t.Errorf("no log line of the 2 deleted; stderr:\n%s", stderr.String())
	}
}

// TestRateLimitSetOnThePageLimitsDiscord: the admin page's user_rate_limit
// is the one limiter both adapters use, so lowering it there limits Discord
// mentions at once, without a restart.
func TestRateLimitSetOnThePageLimitsDiscord(t *testing.T) {
	h := start(t, map[string]string{"ADMIN_PASSWORD": adminPassword, "USER_RATE_LIMIT": "0"})
	h.script(ollamatest.Text("はい、どうぞ。"))
	admin := h.adminClient(t)
	admin.call(t, "PUT", "/api/settings", nil, `{"user_rate_limit": "1/hour"}`)

	h.mention(aliceID, "一つ目")
	h.waitReply(t, 1, equals("はい、どうぞ。"))
	h.mention(aliceID, "二つ目")
	h.waitReply(t, 2, func(s string) bool { return strings.Contains(s, "ペースが速い") })
}
