package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/internal/logtest"
)

var _ commands.TimeZones = (*Reminders)(nil)

// A user's time zone against a real database: the default until set,
// validated names, clearing, and falling back (with a warning) when the
// stored zone cannot be loaded or the lookup fails.
func TestTimeZones(t *testing.T) {
	ctx := context.Background()
	pool := newPool(t)
	logs := &logtest.Buffer{}
	s := newScheduler(t, pool, nil, Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	r := s.Reminders()

	if loc := r.LocationFor(ctx, "u1"); loc != jst {
		t.Errorf("nothing set: LocationFor = %v, want TIMEZONE (%v)", loc, jst)
	}
	if name, set, err := r.TimeZone(ctx, "u1"); name != "" || set || err != nil {
		t.Errorf("nothing set: TimeZone = %q, %v, %v", name, set, err)
	}

	if err := r.SetTimeZone(ctx, "u1", "America/New_York"); err != nil {
		t.Fatal(err)
	}
	if name, set, err := r.TimeZone(ctx, "u1"); name != "America/New_York" || !set || err != nil {
		t.Errorf("after set: TimeZone = %q, %v, %v", name, set, err)
	}
	due := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if got := due.In(r.LocationFor(ctx, "u1")).Format("2006-01-02 15:04 MST"); got != "2026-02-28 19:00 EST" {
		t.Errorf("a reminder due at %v reads %s in the user's zone, want 2026-02-28 19:00 EST", due, got)
	}
	if loc := r.LocationFor(ctx, "u2"); loc != jst {
		t.Errorf("another user: LocationFor = %v, want TIMEZONE", loc)
	}

	for _, bad := range []string{"Local", "Asia/Tokio", "../../etc/passwd", "asia/tokyo "} {
		err := r.SetTimeZone(ctx, "u1", bad)
		if !errors.Is(err, ErrUnknownTimeZone) || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("SetTimeZone(%q) err = %v; want ErrUnknownTimeZone naming the value", bad, err)
		}
	}
	if name, _, _ := r.TimeZone(ctx, "u1"); name != "America/New_York" {
		t.Errorf("a refused name replaced the zone: %q", name)
	}

	if err := r.SetTimeZone(ctx, "u1", ""); err != nil {
		t.Fatal(err)
	}
	if name, set, err := r.TimeZone(ctx, "u1"); name != "" || set || err != nil {
		t.Errorf("after clearing: TimeZone = %q, %v, %v", name, set, err)
	}
	if loc := r.LocationFor(ctx, "u1"); loc != jst {
		t.Errorf("after clearing: LocationFor = %v, want TIMEZONE", loc)
	}
	if logs.String() != "" {
		t.Errorf("logged with nothing wrong: %s", logs)
	}

	// A zone stored when it was valid that this binary cannot load.
	if err := db.SetUserTimeZone(ctx, pool, "u3", "Asia/Atlantis"); err != nil {
		t.Fatal(err)
	}
	if loc := r.LocationFor(ctx, "u3"); loc != jst {
		t.Errorf("an unloadable zone: LocationFor = %v, want TIMEZONE", loc)
	}
	if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "time_zone=Asia/Atlantis") || !strings.Contains(l, "user_id=u3") {
		t.Errorf("an unloadable zone was not warned about: %s", l)
	}

	// The lookup fails: the default, a warning, no error for the caller.
	if _, err := pool.Exec(ctx, "DROP TABLE user_settings"); err != nil {
		t.Fatal(err)
	}
	if loc := r.LocationFor(ctx, "u4"); loc != jst {
		t.Errorf("lookup failed: LocationFor = %v, want TIMEZONE", loc)
	}
	if l := logs.String(); !strings.Contains(l, "lookup failed") || !strings.Contains(l, "user_id=u4") {
		t.Errorf("a failed lookup was not warned about: %s", l)
	}
	if _, _, err := r.TimeZone(ctx, "u4"); err == nil {
		t.Error("TimeZone hid a failed lookup")
	}
	if err := r.SetTimeZone(ctx, "u4", "UTC"); err == nil || errors.Is(err, ErrUnknownTimeZone) {
		t.Errorf("SetTimeZone with the table gone: %v; want a storage error, not a refusal", err)
	}
}
