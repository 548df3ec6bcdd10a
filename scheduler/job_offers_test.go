package scheduler

import (
	"context"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
)

// TestOfferPrune: the daily job deletes the offers made more than a week
// ago, answered or not, and keeps the newer ones.
func TestOfferPrune(t *testing.T) {
	ctx := context.Background()
	pool := newPool(t)
	var ids []int64
	for _, user := range []string{"old-open", "old-answered", "new"} {
		o, err := db.CreateOffer(ctx, pool, db.Offer{Kind: "poll", Space: "guild:1", UserID: user, Payload: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.ID)
	}
	if _, err := db.DecideOffer(ctx, pool, db.OfferPress{ID: ids[1], UserID: "old-answered"}); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "UPDATE offers SET created_at = now() - interval '7 days 1 minute' WHERE id = ANY($1)", ids[:2]); err != nil {
		t.Fatal(err)
	}

	s := newScheduler(t, pool, nil, Options{})
	if err := s.AddHousekeeping(HousekeepingOptions{SyncKnowledgeBase: func(context.Context) error { return nil }}); err != nil {
		t.Fatal(err)
	}
	if err := s.RunNow(ctx, OfferPruneJob); err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, err := pool.Query(ctx, "SELECT user_id FROM offers ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			t.Fatal(err)
		}
		left = append(left, u)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != "new" {
		t.Errorf("offers left after %s: %v, want only the new one", OfferPruneJob, left)
	}
}
