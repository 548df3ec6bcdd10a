package config

import (
	"strings"
	"testing"
	"time"
)

func TestMessageRetention(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  time.Duration
		bad   bool
	}{
		{"", 0, false},
		{"off", 0, false},
		{"OFF", 0, false},
		{"0", 0, false},
		{"365d", 365 * 24 * time.Hour, false},
		{"2y", 2 * 365 * 24 * time.Hour, false},
		{"720h", 720 * time.Hour, false},
		{"1h", 0, true},
		{"-3d", 0, true},
		{"forever", 0, true},
		{"5000y", 0, true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			c, err := Parse(env(map[string]string{"MESSAGE_RETENTION": tc.value}))
			if tc.bad {
				if err == nil || !strings.Contains(err.Error(), "MESSAGE_RETENTION") {
					t.Fatalf("MESSAGE_RETENTION=%q: err = %v, want one naming the variable", tc.value, err)
				}
				return
			}
			if err != nil || c.MessageRetention != tc.want {
				t.Fatalf("MESSAGE_RETENTION=%q = %v, %v; want %v", tc.value, c.MessageRetention, err, tc.want)
			}
		})
	}
}
