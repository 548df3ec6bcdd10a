package tools

import (
	"context"
	"sync"
)

// Offered is something a tool proposed on the user's behalf and kept
// undone (a fact to remember, a poll, a server event): the adapter shows
// Preview under the answer with an Accept and a Decline button that only
// the user may press, and the offer ID decides what a press does.
type Offered struct {
	ID      int64
	Kind    string
	Preview string
	Accept  string // the accepting button's label (作成, 覚える)
	Decline string // the declining one's (やめる, 覚えない)
}

type offersKey struct{}

// Offers collects the offers tools make during one turn.
type Offers struct {
	mu   sync.Mutex
	list []Offered
}

// WithOffers returns a context on which tools can make offers, collected
// into o.
func WithOffers(ctx context.Context, o *Offers) context.Context {
	return context.WithValue(ctx, offersKey{}, o)
}

// Offer adds o to the turn's offers; it reports false when the turn can
// show none (an adapter without buttons), so the tool can say so.
func Offer(ctx context.Context, o Offered) bool {
	c, ok := ctx.Value(offersKey{}).(*Offers)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, o)
	return true
}

// CanOffer reports whether the turn on ctx can show offers.
func CanOffer(ctx context.Context) bool {
	_, ok := ctx.Value(offersKey{}).(*Offers)
	return ok
}

// List is the offers made so far, in order.
func (o *Offers) List() []Offered {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Offered(nil), o.list...)
}
