package db_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// Two processes share a server's two slots: a third lease waits until one
// is given back; one process cannot give back the other's; a lease nobody
// renews is free again after its TTL.
func TestSlotLeases(t *testing.T) {
	pool := dbtest.New(t)
	ctx := t.Context()
	a := &db.SlotLeases{DB: pool, Holder: "a"}
	b := &db.SlotLeases{DB: pool, Holder: "b", TTL: 200 * time.Millisecond}
	const gpu = "http://gpu1:11434"

	s1, ok, err := a.Acquire(ctx, gpu, 2)
	if err != nil || !ok {
		t.Fatalf("a's first lease: %d, %v, %v", s1, ok, err)
	}
	s2, ok, err := b.Acquire(ctx, gpu, 2)
	if err != nil || !ok || s2 == s1 {
		t.Fatalf("b's lease: %d, %v, %v (a holds %d)", s2, ok, err, s1)
	}
	if _, ok, err := a.Acquire(ctx, gpu, 2); err != nil || ok {
		t.Fatalf("a third lease of two slots: ok = %v, %v", ok, err)
	}
	if _, ok, _ := a.Acquire(ctx, "http://gpu2:11434", 1); !ok {
		t.Error("another server's slot was not free")
	}
	if err := a.Release(ctx, gpu, s2); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.Acquire(ctx, gpu, 2); ok {
		t.Error("a gave back b's slot")
	}
	if err := a.Release(ctx, gpu, s1); err != nil {
		t.Fatal(err)
	}
	s3, ok, err := a.Acquire(ctx, gpu, 2)
	if err != nil || !ok || s3 != s1 {
		t.Fatalf("after a gave its slot back: %d, %v, %v", s3, ok, err)
	}

	// b dies: nobody renews its lease, which is free once its TTL is over.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok, err := a.Acquire(ctx, gpu, 2); err != nil {
			t.Fatal(err)
		} else if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("b's lease was not freed after its TTL")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := a.Renew(ctx); err != nil {
		t.Fatal(err)
	}
}

// counted passes statements to the database and counts them.
type counted struct {
	db.Querier
	execs atomic.Int32
}

var _ db.Querier = (*counted)(nil)

func (c *counted) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	c.execs.Add(1)
	return c.Querier.Exec(ctx, sql, args...)
}

// Renew, called every few seconds, asks nothing of the database while the
// process holds no lease (between turns), and extends the leases it holds.
func TestRenewWithoutALeaseAsksNothing(t *testing.T) {
	pool := dbtest.New(t)
	ctx := t.Context()
	q := &counted{Querier: pool}
	l := &db.SlotLeases{DB: q, Holder: "a", TTL: time.Hour}
	const gpu = "http://gpu1:11434"
	renew := func() int32 {
		t.Helper()
		before := q.execs.Load()
		if err := l.Renew(ctx); err != nil {
			t.Fatal(err)
		}
		return q.execs.Load() - before
	}
	if n := renew(); n != 0 {
		t.Errorf("Renew holding no lease made %d statements, want 0", n)
	}
	slot, ok, err := l.Acquire(ctx, gpu, 1)
	if err != nil || !ok {
		t.Fatalf("lease: %v, %v", ok, err)
	}
	if _, err := pool.Exec(ctx, `UPDATE model_slot_leases SET expires_at = now() + interval '1 minute'`); err != nil {
		t.Fatal(err)
	}
	if n := renew(); n != 1 {
		t.Errorf("Renew holding a lease made %d statements, want 1", n)
	}
	var left time.Duration
	if err := pool.QueryRow(ctx, `SELECT expires_at - now() FROM model_slot_leases WHERE holder = 'a'`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left < 50*time.Minute {
		t.Errorf("lease runs out in %s after Renew, want its TTL of an hour", left)
	}
	if err := l.Release(ctx, gpu, slot); err != nil {
		t.Fatal(err)
	}
	if n := renew(); n != 0 {
		t.Errorf("Renew after the release made %d statements, want 0", n)
	}
}
