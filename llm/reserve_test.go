package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm"
)

// leasesHeld counts the slots holder leases now.
func leasesHeld(t *testing.T, dbpool *pgxpool.Pool, holder string) int {
	t.Helper()
	var n int
	if err := dbpool.QueryRow(t.Context(),
		`SELECT count(*) FROM model_slot_leases WHERE holder = $1 AND expires_at > now()`, holder).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A turn reserves its slot while it reads its context: the shared lease is
// taken then, the turn's call uses it without waiting, and another process
// meanwhile waits for the GPU's only slot instead of sending it a second
// request.
func TestReservedSlotIsTheTurnsFirstCall(t *testing.T) {
	dbpool := dbtest.New(t)
	gpu := newServer(t)
	a := process(t, gpu, dbpool, "a", 1)
	b := process(t, gpu, dbpool, "b", 1)

	ctx, unreserve := a.Reserve(t.Context(), toolModel)
	defer unreserve()
	waitFor(t, func() bool { return leasesHeld(t, dbpool, "a") == 1 })
	var evB events
	doneB := turn(b, toolModel, "Bさんの質問", &evB)
	time.Sleep(50 * time.Millisecond) // several of b's lease polls
	if gpu.ChatCalls() != 0 {
		t.Fatalf("process b reached the GPU while a held its only slot")
	}
	var evA events
	if _, err := a.Run(ctx, llm.Request{Model: toolModel, Messages: userMsg("Aさんの質問")}, evA.emit); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(evA.texts(), ""); got != "Aさんの質問" {
		t.Errorf("a got %q", got)
	}
	if q := queuedAt(&evA); len(q) > 0 {
		t.Errorf("a was told to wait (%v) for the slot it reserved", q)
	}
	if err := <-doneB; err != nil {
		t.Fatal(err)
	}
	if n := gpu.MaxInFlight(); n > 1 {
		t.Errorf("the GPU answered %d requests at once; it has 1 slot", n)
	}
	waitFor(t, func() bool { return leasesHeld(t, dbpool, "a")+leasesHeld(t, dbpool, "b") == 0 })
}

// A turn that ends without asking the model (its context failed, say)
// gives its reserved slot back: the other process's turn is answered.
func TestUnusedReservationIsGivenBack(t *testing.T) {
	dbpool := dbtest.New(t)
	gpu := newServer(t)
	a := process(t, gpu, dbpool, "a", 1)
	b := process(t, gpu, dbpool, "b", 1)

	_, unreserve := a.Reserve(t.Context(), toolModel)
	waitFor(t, func() bool { return leasesHeld(t, dbpool, "a") == 1 })
	unreserve()
	var ev events
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := b.Run(ctx, llm.Request{Model: toolModel, Messages: userMsg("質問")}, ev.emit); err != nil {
		t.Fatalf("the other process's turn: %v", err)
	}
	waitFor(t, func() bool { return leasesHeld(t, dbpool, "a") == 0 })
}

// A reservation the turn's call cannot use (another model, or a background
// call first) is given back before that call waits: a turn on a one-slot
// server never waits for the slot it holds itself.
func TestReservationForAnotherCallDoesNotHoldTheSlot(t *testing.T) {
	_, pool := gpus(t, 1)
	p := llm.New(llm.Options{Pool: pool})
	for _, tc := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"another model", func(ctx context.Context) error {
			_, err := p.Run(ctx, llm.Request{Model: plainModel, Messages: userMsg("質問")}, nil)
			return err
		}},
		{"background", func(ctx context.Context) error {
			return p.Background(ctx, func(context.Context) error { return nil })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			ctx, unreserve := p.Reserve(ctx, toolModel)
			defer unreserve()
			if err := tc.call(ctx); err != nil {
				t.Fatalf("the call waited for its own reservation: %v", err)
			}
		})
	}
}

// A slot's lease stays with its process for a moment after the call: the
// process's next turn takes it without asking the database, and another
// process's turn waits until it is given back, so the GPU never has two.
func TestWarmLeaseServesTheNextTurnHere(t *testing.T) {
	dbpool := dbtest.New(t)
	gpu := newServer(t)
	a := process(t, gpu, dbpool, "a", 1)
	b := process(t, gpu, dbpool, "b", 1)

	var ev1 events
	if _, err := a.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("一つ目")}, ev1.emit); err != nil {
		t.Fatal(err)
	}
	if n := leasesHeld(t, dbpool, "a"); n != 1 {
		t.Fatalf("after its call a holds %d leases, want the one kept for its next call", n)
	}
	var evB events
	doneB := turn(b, toolModel, "Bさんの質問", &evB)
	var ev2 events
	if _, err := a.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("二つ目")}, ev2.emit); err != nil {
		t.Fatal(err)
	}
	if q := queuedAt(&ev2); len(q) > 0 {
		t.Errorf("a's next turn waited (%v) for the lease it kept", q)
	}
	select {
	case err := <-doneB:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("b's turn was never served after a's lease was given back")
	}
	if n := gpu.MaxInFlight(); n > 1 {
		t.Errorf("the GPU answered %d requests at once; it has 1 slot", n)
	}
	waitFor(t, func() bool { return leasesHeld(t, dbpool, "a")+leasesHeld(t, dbpool, "b") == 0 })
}
