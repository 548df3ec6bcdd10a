package llm_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// process is one yorozu process's pipeline over a shared GPU, leasing its
// slots in the shared database.
func process(t *testing.T, gpu *ollamatest.Server, dbpool *pgxpool.Pool, holder string, slots int) *llm.Pipeline {
	t.Helper()
	pool := llm.NewPool(llm.PoolOptions{
		Servers:   []llm.PoolServer{{Name: "gpu", Key: gpu.URL(), Backend: gpu.Client(), Slots: slots}},
		Leases:    &db.SlotLeases{DB: dbpool, Holder: holder},
		LeasePoll: 10 * time.Millisecond,
	})
	go pool.Run(t.Context())
	return llm.New(llm.Options{Pool: pool})
}

// Two processes on one two-slot GPU never send it more than two answers at
// once: the rest wait, told their place, and all are answered.
func TestPoolsShareSlotsThroughPostgres(t *testing.T) {
	dbpool := dbtest.New(t)
	gpu := newServer(t)
	gate := make(chan struct{})
	gpu.Handle(gatedEcho(gate))
	a := process(t, gpu, dbpool, "a", 2)
	b := process(t, gpu, dbpool, "b", 2)

	evs := make([]*events, 6)
	var dones []chan error
	for i := range evs {
		evs[i] = &events{}
		p := a
		if i%2 == 1 {
			p = b
		}
		dones = append(dones, turn(p, toolModel, fmt.Sprintf("質問%d", i+1), evs[i]))
	}
	// Two answers are in flight and the four others wait in their
	// process's line, although each process has two slots of its own.
	waitFor(t, func() bool { return gpu.InFlight() == 2 && a.QueueLen()+b.QueueLen() == 4 })
	close(gate)
	for i, done := range dones {
		if err := <-done; err != nil {
			t.Fatalf("person %d: %v", i+1, err)
		}
		if got := strings.Join(evs[i].texts(), ""); got != fmt.Sprintf("質問%d", i+1) {
			t.Errorf("person %d got %q", i+1, got)
		}
	}
	if n := gpu.MaxInFlight(); n > 2 {
		t.Errorf("the GPU answered %d requests at once; it has 2 slots", n)
	}
	waiting := 0
	for _, ev := range evs {
		if len(queuedAt(ev)) > 0 {
			waiting++
		}
	}
	if waiting < 4 {
		t.Errorf("%d people were told to wait, want 4", waiting)
	}
}

// A process that died holding the GPU's only slot stops renewing its
// lease: the slot is free again within its TTL and the waiting turn is
// answered.
func TestPoolCrashedHoldersLeaseIsFreed(t *testing.T) {
	dbpool := dbtest.New(t)
	gpu := newServer(t)
	dead := &db.SlotLeases{DB: dbpool, Holder: "crashed", TTL: 300 * time.Millisecond}
	if _, ok, err := dead.Acquire(t.Context(), gpu.URL(), 1); err != nil || !ok {
		t.Fatalf("the crashed process's lease: %v, %v", ok, err)
	}
	p := process(t, gpu, dbpool, "alive", 1)
	var ev events
	res, err := p.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("まだ？")}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "まだ？" {
		t.Errorf("answer = %q", res.Content)
	}
	if got := queuedAt(&ev); !slices.Equal(got, []int{1}) {
		t.Errorf("told %v while the dead lease held the slot, want [1]", got)
	}
}

// With the database away the pool uses its own slots only: turns are
// answered, and LeaseErr says why the slots are not shared.
func TestPoolWithoutDatabaseUsesLocalSlots(t *testing.T) {
	dbpool, err := pgxpool.New(t.Context(), dbtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	dbpool.Close() // the database is gone
	gpu := newServer(t)
	p := process(t, gpu, dbpool, "alone", 1)
	for _, q := range []string{"一つ目", "二つ目"} {
		res, err := p.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg(q)}, nil)
		if err != nil || res.Content != q {
			t.Fatalf("answer = %q, %v", res.Content, err)
		}
	}
	if p.Pool().LeaseErr() == nil {
		t.Error("LeaseErr is nil with the database gone")
	}
}

// BenchmarkPoolSlot is what the pool adds to a turn's path to the model:
// taking a slot and, once answered, giving it back, with this process's
// slots only and with a lease in Postgres (one round trip each way).
// Target: well under the 3 ms budget from mention to model request.
func BenchmarkPoolSlot(b *testing.B) {
	gpu := newServer(b)
	for _, shared := range []bool{false, true} {
		b.Run(fmt.Sprintf("leased=%v", shared), func(b *testing.B) {
			o := llm.PoolOptions{Servers: []llm.PoolServer{{Name: "gpu", Key: gpu.URL(), Backend: gpu.Client(), Slots: 1}}}
			if shared {
				o.Leases = &db.SlotLeases{DB: dbtest.New(b), Holder: "bench"}
			}
			p := llm.New(llm.Options{Pool: llm.NewPool(o)})
			fn := func(context.Context) error { return nil }
			if err := p.Background(b.Context(), fn); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := p.Background(b.Context(), fn); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
