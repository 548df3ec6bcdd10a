package web

import (
	"errors"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/config"
)

// TestSettingRefusalsAreJapanese: a value the page refuses is explained in
// Japanese, without the parser's English or the variable's name (the page
// shows it under the field).
func TestSettingRefusalsAreJapanese(t *testing.T) {
	defs := SettingDefs(&config.Config{}, func(expr string) error {
		return errors.New(`cron "` + expr + `": end of range (99) above maximum (59)`)
	})
	for _, tc := range []struct{ key, value string }{
		{"weather_cron", "99 99 * * *"},
		{"tips_cron", "毎朝"},
		{"user_rate_limit", "たくさん"},
		{"weather_channel_id", "#雑談"},
		{"searxng_url", "example.com"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			for _, d := range defs {
				if d.Key != tc.key {
					continue
				}
				err := d.Validate(tc.value)
				if err == nil {
					t.Fatalf("%q accepted", tc.value)
				}
				if msg := err.Error(); !containsJapanese(msg) || strings.Contains(msg, "range") || strings.Contains(msg, strings.ToUpper(tc.key)) {
					t.Errorf("the refusal reads %q", msg)
				}
				return
			}
			t.Fatalf("no setting %s", tc.key)
		})
	}
}
