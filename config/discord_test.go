package config

import (
	"strings"
	"testing"
)

func TestDiscordReactions(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool
		err   string
	}{
		{"", true, ""},
		{"false", false, ""},
		{"true", true, ""},
		{"sometimes", true, "DISCORD_REACTIONS"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			env := map[string]string{"DISCORD_REACTIONS": tc.value}
			c, err := Parse(func(k string) string { return env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil || c.Discord.Reactions != tc.want {
				t.Fatalf("= %+v, %v; want Reactions %v", c.Discord, err, tc.want)
			}
		})
	}
}
