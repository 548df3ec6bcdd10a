package web

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// TestSettingsFollowOtherProcesses: a change made on one process's page
// reaches another process sharing the database, without a restart.
func TestSettingsFollowOtherProcesses(t *testing.T) {
	pool := dbtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defs := []SettingDef{
		{Key: "weather_cron", Env: "WEATHER_CRON", Default: "30 6 * * *", Live: true},
		{Key: "default_model", Env: "DEFAULT_MODEL", Default: "qwen3", Live: true},
	}
	here, err := NewSettings(ctx, pool, defs)
	if err != nil {
		t.Fatal(err)
	}
	there, err := NewSettings(ctx, pool, defs)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]string{}
	there.OnChange(func(k, v string) {
		mu.Lock()
		seen[k] = v
		mu.Unlock()
	})
	done := make(chan struct{})
	go func() { there.Follow(ctx, slog.New(slog.DiscardHandler)); close(done) }()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("another process never saw %s", what)
			}
		}
	}
	cron := "0 7 * * *"
	// The listener may not be listening yet: repeat the change until it is
	// seen (each Update notifies).
	waitFor("the new schedule", func() bool {
		if err := here.update(ctx, map[string]*string{"weather_cron": &cron}); err != nil {
			t.Fatal(err)
		}
		return there.Get("weather_cron") == cron
	})
	mu.Lock()
	if seen["weather_cron"] != cron || len(seen) != 1 {
		t.Errorf("OnChange there heard %v; want only weather_cron=%s", seen, cron)
	}
	mu.Unlock()
	// A reset to the environment's value travels too.
	if err := here.update(ctx, map[string]*string{"weather_cron": nil}); err != nil {
		t.Fatal(err)
	}
	waitFor("the reset", func() bool { return there.Get("weather_cron") == "30 6 * * *" })
	mu.Lock()
	if seen["weather_cron"] != "30 6 * * *" {
		t.Errorf("OnChange there heard %v after the reset", seen)
	}
	mu.Unlock()
	cancel()
	<-done
}
