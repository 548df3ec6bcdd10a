package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDisasterDefaults(t *testing.T) {
	c, err := Parse(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	d := c.Disaster
	if d.Enabled() || d.QuakeMinIntensity != "3" || d.QuakePoll != 30*time.Second || d.QuakeMaxAge != 30*time.Minute ||
		len(d.QuakeAreas) != 0 || d.QuakeMentionRole != "" || d.WarningIncludeAdvisories {
		t.Fatalf("defaults %+v", d)
	}
}

func TestDisasterValues(t *testing.T) {
	c, err := Parse(env(map[string]string{
		"QUAKE_WEBHOOK_URL": "https://discord.com/api/webhooks/1/x", "QUAKE_MIN_INTENSITY": "5弱",
		"QUAKE_AREAS": "13, 神奈川, 大阪府,13", "QUAKE_POLL": "5s", "QUAKE_MAX_AGE": "1h",
		"QUAKE_MENTION": "123456789012345678:６強", "WARNING_INCLUDE_ADVISORIES": "true",
	}))
	if err != nil {
		t.Fatal(err)
	}
	d := c.Disaster
	if !d.Enabled() || d.QuakeMinIntensity != "5-" || !slices.Equal(d.QuakeAreas, []string{"13", "14", "27"}) ||
		d.QuakePoll != 5*time.Second || d.QuakeMaxAge != time.Hour || d.QuakeMentionRole != "123456789012345678" ||
		d.QuakeMentionFrom != "6+" || !d.WarningIncludeAdvisories {
		t.Fatalf("parsed %+v", d)
	}
}

func TestDisasterBadValuesNameTheVariable(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"QUAKE_MIN_INTENSITY", "8"},
		{"QUAKE_AREAS", "東京,アトランティス"},
		{"QUAKE_POLL", "1s"},
		{"QUAKE_MENTION", "@here"},
		{"QUAKE_CHANNEL_ID", "123"}, // no DISCORD_TOKEN
		{"WARNING_INCLUDE_ADVISORIES", "maybe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(env(map[string]string{tc.name: tc.value}))
			if err == nil || !strings.Contains(err.Error(), tc.name) {
				t.Fatalf("%s=%s: %v", tc.name, tc.value, err)
			}
		})
	}
}
