package memory

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestQuietRepeatsLowersWarningsWithinAMinute(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(quietRepeats(slog.NewTextHandler(&buf, nil))).With("component", "memory")
	at := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	emit := func(level slog.Level, msg string, after time.Duration) {
		r := slog.NewRecord(at.Add(after), level, msg, 0)
		if err := log.Handler().Handle(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	emit(slog.LevelWarn, "summarise session", 0)
	emit(slog.LevelWarn, "tag message", 10*time.Second)
	emit(slog.LevelError, "memory background job panicked; skipped", 20*time.Second)
	emit(slog.LevelWarn, "summarise session", 61*time.Second)

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		`level=WARN msg="summarise session"`,
		`level=INFO msg="tag message"`,
		`level=ERROR msg="memory background job panicked; skipped"`,
		`level=WARN msg="summarise session"`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) || !strings.Contains(lines[i], "component=memory") {
			t.Errorf("line %d = %s, want %s with component=memory", i, lines[i], w)
		}
	}
}

func TestQuietRepeatsDropsALoweredWarningBelowTheLevel(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(quietRepeats(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})))
	log.Warn("first")
	log.Warn("second")
	if got := buf.String(); !strings.Contains(got, "first") || strings.Contains(got, "second") {
		t.Errorf("log = %q, want the first warning only", got)
	}
}
