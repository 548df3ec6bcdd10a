package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeQuakeJMA serves the disaster package's earthquake fixture with its
// reports moved to a few minutes ago, and empty tsunami and warning lists.
func fakeQuakeJMA(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../disaster/testdata/quake_02_detail.json")
	if err != nil {
		t.Fatal(err)
	}
	// 09:00–09:05 becomes 10 to 25 minutes ago: "…T09:0" → "…T<hh>:<m>".
	tens := time.Now().Add(-15 * time.Minute).In(time.FixedZone("JST", 9*3600)).Format("2006-01-02T15:04")[:15]
	list := strings.ReplaceAll(string(b), "2026-01-10T09:0", tens)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /quake/data/list.json", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(list)) })
	mux.HandleFunc("GET /tsunami/data/list.json", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("[]")) })
	mux.HandleFunc("GET /warning/data/warning/130000.json", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, "../../disaster/testdata/warning_130000_cleared.json")
	})
	mux.HandleFunc("GET /common/const/area.json", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, "../../disaster/testdata/area.json")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestDisasterJobPostsOnce: `yorozu jobs run disaster` posts an earthquake
// through QUAKE_WEBHOOK_URL; a second run (another process, after a
// restart) posts nothing more.
func TestDisasterJobPostsOnce(t *testing.T) {
	jma := fakeQuakeJMA(t)
	h := start(t, map[string]string{"DISCORD_TOKEN": ""}) // only for its fakes and database
	h.discord.AddWebhook("500000000000000009", "quake-token", channelID)
	env := map[string]string{
		"QUAKE_WEBHOOK_URL": h.discord.URL() + "api/v10/webhooks/500000000000000009/quake-token",
		"JMA_BASE_URL":      jma, "QUAKE_AREAS": "石川県",
	}
	h.runJobNow(t, "disaster", env)
	h.runJobNow(t, "disaster", env)
	msgs := h.discord.Messages(channelID)
	if len(msgs) != 1 || !strings.Contains(msgs[0].Content, "最大震度5強") || !strings.Contains(msgs[0].Content, "輪島市") || msgs[0].Edits != 0 {
		t.Fatalf("posts: %+v", msgs)
	}
	var n int
	if err := h.pool.QueryRow(t.Context(), "SELECT count(*) FROM disaster_events WHERE message_id <> ''").Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d posted events (%v), want 1", n, err)
	}
}
