package db_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

const (
	week  = 7 * 24 * time.Hour
	lease = 3 * time.Minute
)

// press is u1's (or user's) press of offer id.
func press(id int64, user string, accept bool) db.OfferPress {
	return db.OfferPress{ID: id, UserID: user, Accept: accept, Lifetime: week, Lease: lease}
}

func TestOffers(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	o, err := db.CreateOffer(ctx, pool, db.Offer{Kind: "poll", Space: "guild:1", UserID: "u1", ChannelID: "c1", Payload: []byte(`{"question":"いつ？"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.DecideOffer(ctx, pool, press(o.ID, "u2", true)); !errors.Is(err, db.ErrNotOffered) {
		t.Errorf("someone else's press: err = %v, want ErrNotOffered", err)
	}
	if _, err := db.DecideOffer(ctx, pool, press(o.ID+100, "u1", true)); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("no such offer: err = %v, want ErrNotFound", err)
	}
	// Presses at once: one counts; the others find it at work.
	var won atomic.Int32
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			d, err := db.DecideOffer(ctx, pool, press(o.ID, "u1", true))
			switch {
			case err == nil:
				won.Add(1)
				if !d.Accepted || d.Attempts != 1 || string(d.Payload) != `{"question": "いつ？"}` {
					t.Errorf("decided offer = %+v", d)
				}
			case !errors.Is(err, db.ErrOfferBusy):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Errorf("%d presses counted, want 1", won.Load())
	}
	// The work failed: reopened, the next press is the second attempt.
	if err := db.ReopenOffer(ctx, pool, o.ID, 1); err != nil {
		t.Fatal(err)
	}
	d, err := db.DecideOffer(ctx, pool, press(o.ID, "u1", true))
	if err != nil || d.Attempts != 2 {
		t.Fatalf("after reopening, accepting = %+v, %v; want attempt 2", d, err)
	}
	if err := db.FinishOffer(ctx, pool, o.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DecideOffer(ctx, pool, press(o.ID, "u1", false)); !errors.Is(err, db.ErrOfferDecided) {
		t.Errorf("a press after it was done: err = %v, want ErrOfferDecided", err)
	}
	// Done is done: a late reopen (a second press's failure) undoes nothing.
	if err := db.ReopenOffer(ctx, pool, o.ID, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DecideOffer(ctx, pool, press(o.ID, "u1", true)); !errors.Is(err, db.ErrOfferDecided) {
		t.Errorf("a press after a late reopen: err = %v, want ErrOfferDecided", err)
	}

	declined, err := db.CreateOffer(ctx, pool, db.Offer{Kind: "poll", Space: "guild:1", UserID: "u1", Payload: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := db.DecideOffer(ctx, pool, press(declined.ID, "u1", false)); err != nil || d.Accepted || d.Attempts != 0 || d.DoneAt == nil {
		t.Errorf("declining = %+v, %v", d, err)
	}
	if _, err := db.DecideOffer(ctx, pool, press(declined.ID, "u1", true)); !errors.Is(err, db.ErrOfferDecided) {
		t.Errorf("accepting after declining: err = %v, want ErrOfferDecided", err)
	}
}

// TestOfferClaimOutlivedAndExpired: an acceptance whose work never
// finished (its process gone) may be taken over once its lease is over, as
// a second attempt; an offer past its lifetime is refused as expired, and
// deleted with the others of its age, answered or not.
func TestOfferClaimOutlivedAndExpired(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	mk := func() db.Offer {
		o, err := db.CreateOffer(ctx, pool, db.Offer{Kind: "event", Space: "guild:1", UserID: "u1", Payload: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	stuck := mk()
	if _, err := db.DecideOffer(ctx, pool, press(stuck.ID, "u1", true)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "UPDATE offers SET decided_at = now() - interval '4 minutes' WHERE id = $1", stuck.ID); err != nil {
		t.Fatal(err)
	}
	if d, err := db.DecideOffer(ctx, pool, press(stuck.ID, "u1", true)); err != nil || d.Attempts != 2 {
		t.Errorf("taking over a claim past its lease = %+v, %v; want attempt 2", d, err)
	}
	// The first attempt fails after all: the second's claim stands.
	if err := db.ReopenOffer(ctx, pool, stuck.ID, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DecideOffer(ctx, pool, press(stuck.ID, "u1", true)); !errors.Is(err, db.ErrOfferBusy) {
		t.Errorf("a press after the first attempt failed late: err = %v, want ErrOfferBusy (the second is at work)", err)
	}

	old, answered, fresh := mk(), mk(), mk()
	if _, err := db.DecideOffer(ctx, pool, press(answered.ID, "u1", false)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "UPDATE offers SET created_at = now() - interval '8 days' WHERE id = ANY($1)", []int64{old.ID, answered.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DecideOffer(ctx, pool, press(old.ID, "u1", true)); !errors.Is(err, db.ErrOfferExpired) {
		t.Errorf("an offer of 8 days ago: err = %v, want ErrOfferExpired", err)
	}
	n, err := db.DeleteOffersBefore(ctx, pool, week)
	if err != nil || n != 2 {
		t.Fatalf("DeleteOffersBefore = %d, %v; want the 2 offers of 8 days ago", n, err)
	}
	var left []int64
	rows, err := pool.Query(ctx, "SELECT id FROM offers ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		left = append(left, id)
	}
	if len(left) != 2 || left[0] != stuck.ID || left[1] != fresh.ID {
		t.Errorf("offers left %v, want %d and %d", left, stuck.ID, fresh.ID)
	}
}
