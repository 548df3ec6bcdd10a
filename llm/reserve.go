package llm

import (
	"context"
	"sync/atomic"
)

// reservation is a slot taken for a turn's first model call before the
// call is made: beside the turn's context reads, so that the shared lease
// (a database round trip) is not paid after them.
type reservation struct {
	model string
	done  chan struct{} // closed once the lease was asked for
	slot  *slot         // nil when the lease could not be had at once

	taken atomic.Bool // used by the call, or dropped
}

type reservationKey struct{}

// Reserve takes a slot for the turn's first call of model now, while the
// turn is still reading its context, and returns the context that call
// uses it from. Nothing is reserved when no slot is free or calls are
// waiting for one: the call waits in line then, as any. The function
// returned gives back a slot the turn did not use; call it when the turn
// ends.
func (p *Pipeline) Reserve(ctx context.Context, model string) (context.Context, func()) {
	if p.pool == nil || model == "" {
		return ctx, func() {}
	}
	r := p.pool.reserve(ctx, model)
	if r == nil {
		return ctx, func() {}
	}
	return context.WithValue(ctx, reservationKey{}, r), r.drop
}

// reserve takes a free slot for model when one is free and nobody waits,
// and asks for its shared lease in the background.
func (p *Pool) reserve(ctx context.Context, model string) *reservation {
	p.mu.Lock()
	if len(p.waiters) > 0 {
		p.mu.Unlock()
		return nil
	}
	s := p.pickLocked(&waiter{model: model})
	if s == nil {
		p.mu.Unlock()
		return nil
	}
	s.inUse++
	if lease, ok := s.takeWarmLocked(); ok {
		p.mu.Unlock()
		r := &reservation{model: model, done: make(chan struct{}), slot: &slot{p: p, srv: s, lease: lease}}
		close(r.done)
		return r
	}
	p.mu.Unlock()
	r := &reservation{model: model, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		lease, busy, err := p.lease(ctx, s)
		if err != nil || busy {
			// Another process holds every slot of s, or the turn
			// ended: the call waits in line as any.
			p.give(s)
			return
		}
		r.slot = &slot{p: p, srv: s, lease: lease}
	}()
	return r
}

// reserved is the slot reserved in ctx for a call of model, once its lease
// is in; nil when there is none (none was reserved, it was used already,
// or its lease could not be had). A reservation for another call (another
// model, a background call, a retry elsewhere) is given back first, so
// that the turn never waits for a slot it holds itself.
func reserved(ctx context.Context, model string, fits bool) *slot {
	r, ok := ctx.Value(reservationKey{}).(*reservation)
	if !ok {
		return nil
	}
	if !fits || r.model != model {
		r.drop()
		return nil
	}
	if !r.taken.CompareAndSwap(false, true) {
		return nil
	}
	<-r.done
	return r.slot
}

// drop gives back the reserved slot when the turn did not use it.
func (r *reservation) drop() {
	if !r.taken.CompareAndSwap(false, true) {
		return
	}
	go func() {
		<-r.done
		if r.slot != nil {
			r.slot.release()
		}
	}()
}
