package db_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestOffers(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	o, err := db.CreateOffer(ctx, pool, db.Offer{Kind: "poll", Space: "guild:1", UserID: "u1", ChannelID: "c1", Payload: []byte(`{"question":"いつ？"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.DecideOffer(ctx, pool, o.ID, "u2", true); !errors.Is(err, db.ErrNotOffered) {
		t.Errorf("someone else's press: err = %v, want ErrNotOffered", err)
	}
	if _, err := db.DecideOffer(ctx, pool, o.ID+100, "u1", true); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("no such offer: err = %v, want ErrNotFound", err)
	}
	// Presses at once: one counts.
	var won atomic.Int32
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			d, err := db.DecideOffer(ctx, pool, o.ID, "u1", true)
			switch {
			case err == nil:
				won.Add(1)
				if !d.Accepted || string(d.Payload) != `{"question": "いつ？"}` {
					t.Errorf("decided offer = %+v", d)
				}
			case !errors.Is(err, db.ErrOfferDecided):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Errorf("%d presses counted, want 1", won.Load())
	}
	if err := db.ReopenOffer(ctx, pool, o.ID); err != nil {
		t.Fatal(err)
	}
	if d, err := db.DecideOffer(ctx, pool, o.ID, "u1", false); err != nil || d.Accepted {
		t.Errorf("after reopening, declining = %+v, %v", d, err)
	}
}
