package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
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
	h.stderr.waitFor(t, ctx, regexp.MustCompile(`no destination set: no weather post`))
	if n := len(h.discord.Messages(weatherChannel)); n > stopped+1 {
		t.Errorf("%d more posts after the destination was reset", n-stopped)
	}
}
