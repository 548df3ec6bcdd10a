package bot

import (
	"strconv"
	"testing"
	"time"
)

// The filter's maps forget what is past its time once they are large: a
// bot that meets a new DM user every minute for a week keeps the verdicts
// of about filterSweep users and the notices of the last day, not one per
// user ever seen.
func TestGuildFilterForgetsIdleEntries(t *testing.T) {
	var f guildFilter
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := range 7 * 24 * 60 {
		now = now.Add(time.Minute)
		id := strconv.Itoa(i)
		if !f.notice("dm:"+id, now) {
			t.Fatalf("user %s not logged the first time", id)
		}
		f.remember(id, dmVerdict{ok: i%2 == 0, at: now})
	}
	if n, within := len(f.noticed), int(noticeTTL/time.Minute); n > within+1 {
		t.Errorf("%d ignored users remembered, want at most the last day's %d", n, within+1)
	}
	if n := len(f.dm); n > filterSweep+1 {
		t.Errorf("%d DM verdicts remembered, want at most %d", n, filterSweep+1)
	}
	// Within its time an entry is kept: logged once, verdict known.
	if f.notice("dm:10079", now.Add(time.Hour)) {
		t.Error("a user ignored an hour ago was logged again")
	}
	if !f.notice("dm:10079", now.Add(25*time.Hour)) {
		t.Error("a user ignored a day ago was not logged again")
	}
	if _, ok := f.dm["10079"]; !ok {
		t.Error("the newest verdict was forgotten")
	}
}
