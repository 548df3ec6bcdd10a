package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestPostSettingsApplyWithoutRestart: a weather post with no destination
// at start gets a channel and a schedule on the admin page, and posts there
// on that schedule — no restart. Taking the channel away again stops it.
func TestPostSettingsApplyWithoutRestart(t *testing.T) {
	jmaURL := fakeJMA(t)
	h := start(t, map[string]string{"ADMIN_PASSWORD": adminPassword, "JMA_BASE_URL": jmaURL})
	const weatherChannel = "600000000000000007"
	h.discord.AddChannel(weatherChannel)
	admin := h.adminClient(t)

	// Every two seconds (a leading seconds field), to the new channel.
	admin.call(t, "PUT", "/api/settings", nil, `{"weather_channel_id": "`+weatherChannel+`", "weather_cron": "*/2 * * * * *"}`)
	var settings struct {
		Settings []struct {
			Key, Value, Source, Applies string
		} `json:"settings"`
	}
	admin.call(t, "GET", "/api/settings", &settings)
	for _, s := range settings.Settings {
		if (s.Key == "weather_channel_id" || s.Key == "weather_cron") && (s.Source != "page" || s.Applies != "now") {
			t.Errorf("%s shown as %+v; want set on the page, applied now", s.Key, s)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for len(h.discord.Messages(weatherChannel)) == 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("no weather post in the channel set on the page; log:\n%s", h.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	post := h.discord.Messages(weatherChannel)[0]
	if !strings.Contains(post.Content, "洗濯指数") {
		t.Errorf("weather post = %q", post.Content)
	}

	// Reset the channel: the environment has none, so the slots that keep
	// coming find no destination and post nothing.
	admin.call(t, "PUT", "/api/settings", nil, `{"weather_channel_id": null}`)
	stopped := len(h.discord.Messages(weatherChannel))
	waitLog(t, ctx, h.stderr, regexp.MustCompile(`no destination set: no weather post`))
	if n := len(h.discord.Messages(weatherChannel)); n > stopped+1 {
		t.Errorf("%d more posts after the destination was reset", n-stopped)
	}
}

// TestModelAndSearchSetOnThePageApplyAtOnce: the chat model and the search
// backend changed on the admin page are the ones the very next Discord turn
// uses — no restart — and null puts the environment's back.
func TestModelAndSearchSetOnThePageApplyAtOnce(t *testing.T) {
	searx := func(title string) (*httptest.Server, *atomic.Int32) {
		var hits atomic.Int32
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"query":"q","results":[{"title":%q,"url":"https://example.com/a","content":"本文"}]}`, title)
		}))
		t.Cleanup(s.Close)
		return s, &hits
	}
	envSearx, envHits := searx("環境変数の検索")
	pageSearx, pageHits := searx("画面で設定した検索")
	h := start(t, map[string]string{"ADMIN_PASSWORD": adminPassword, "SEARCH_BACKEND": "searxng", "SEARXNG_URL": envSearx.URL})
	h.ollama.AddModel("gemma3", "completion", "tools")
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return ollamatest.Text(req.Model + " が読みました: " + last.Content[:min(len(last.Content), 200)])
		}
		return ollamatest.ToolCalls(ollamatest.Call("web_search", map[string]any{"query": "調べもの"}))
	})
	admin := h.adminClient(t)
	admin.call(t, "PUT", "/api/settings", nil, `{"default_model": "gemma3", "searxng_url": "`+pageSearx.URL+`"}`)

	h.mention(aliceID, "調べて")
	reply := h.waitReply(t, 1, func(s string) bool { return strings.HasPrefix(s, "gemma3 が読みました") })
	if !strings.Contains(reply.Content, "画面で設定した検索") || pageHits.Load() != 1 || envHits.Load() != 0 {
		t.Errorf("with the page's settings: %q (page backend %d hits, environment's %d)", reply.Content, pageHits.Load(), envHits.Load())
	}

	admin.call(t, "PUT", "/api/settings", nil, `{"default_model": null, "searxng_url": null}`)
	h.mention(aliceID, "もう一度調べて")
	reply = h.waitReply(t, 2, func(s string) bool { return strings.Contains(s, "が読みました") })
	if !strings.HasPrefix(reply.Content, model+" が読みました") || !strings.Contains(reply.Content, "環境変数の検索") || envHits.Load() != 1 {
		t.Errorf("after the reset: %q (environment's backend %d hits)", reply.Content, envHits.Load())
	}
}
