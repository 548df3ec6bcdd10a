package scheduler

import (
	"context"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
)

// Reminders that skip holidays outlast Golden Week (2027: 5/3–5/5) however
// often they fire: set on its eve, resumed or skipped into it, each is next
// due on 5/6 and stays pending.
func TestHolidayRulesOutlastGoldenWeek(t *testing.T) {
	pool := newPool(t)
	clock := newClock(at(2027, 5, 2, 22, 30))
	s := newScheduler(t, pool, nil, Options{Now: clock.Now})
	r := s.Reminders()
	ctx := context.Background()
	owner := db.Owner{UserID: "u1"}
	gwOver := at(2027, 5, 6, 0, 0)

	stored := func(t *testing.T, id int64) {
		t.Helper()
		if got := reminder(t, s, id); !got.Pending() || !got.DueAt.Equal(gwOver) {
			t.Errorf("stored: due %s, pending %v; want due %s", got.DueAt, got.Pending(), gwOver)
		}
	}

	t.Run("created on the eve", func(t *testing.T) {
		clock.Set(at(2027, 5, 2, 23, 50))
		rem := repeat(t, r, "u1", "c1", "水分補給", "15分ごと 祝日は除く")
		if !rem.DueAt.Equal(gwOver) {
			t.Errorf("due %s, want %s", rem.DueAt, gwOver)
		}
		stored(t, rem.ID)
	})
	t.Run("skipped into it", func(t *testing.T) {
		clock.Set(at(2027, 5, 2, 22, 30))
		rem := repeat(t, r, "u1", "c1", "換気", "毎時 祝日は除く")
		if want := at(2027, 5, 2, 23, 0); !rem.DueAt.Equal(want) {
			t.Fatalf("due %s, want %s", rem.DueAt, want)
		}
		skipped, err := r.Skip(ctx, owner, rem.ID)
		if err != nil || !skipped.DueAt.Equal(gwOver) || !skipped.Pending() {
			t.Errorf("skip: %+v, %v; want due %s", skipped, err, gwOver)
		}
		stored(t, rem.ID)
	})
	t.Run("resumed on the eve", func(t *testing.T) {
		clock.Set(at(2027, 4, 28, 12, 10))
		rem := repeat(t, r, "u1", "c1", "ストレッチ", "毎時 祝日は除く")
		if _, err := r.Pause(ctx, owner, rem.ID); err != nil {
			t.Fatal(err)
		}
		clock.Set(at(2027, 5, 2, 23, 30))
		resumed, err := r.Resume(ctx, owner, rem.ID)
		if err != nil || !resumed.DueAt.Equal(gwOver) || !resumed.Pending() {
			t.Errorf("resume: %+v, %v; want due %s", resumed, err, gwOver)
		}
		stored(t, rem.ID)
	})
}
