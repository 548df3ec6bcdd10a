package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// Defaults of PoolOptions.
const (
	// DefaultRefresh is how often each server's model list is read again.
	DefaultRefresh = time.Minute
	// DefaultRenewEvery is how often this process renews its slot leases.
	DefaultRenewEvery = 3 * time.Second
	// DefaultLeasePoll is how often a turn waiting for a slot that another
	// process holds asks again.
	DefaultLeasePoll = 100 * time.Millisecond
)

// Backoff of a server taken out after a failure: the first retry after
// downMin, doubling up to downMax.
const (
	downMin = time.Second
	downMax = time.Minute
)

// leaseTimeout bounds one lease call; leaseRetry is how long the pool uses
// its local slots only after the lease store failed, before asking again.
const (
	leaseTimeout = 2 * time.Second
	leaseRetry   = 5 * time.Second
)

// Leases shares the servers' slots with every other process that uses them
// (db.SlotLeases: a lease table in Postgres). A lease is this process's
// until it is released or its holder stops renewing it.
type Leases interface {
	// Acquire takes a free slot (0 ≤ slot < slots) of the server known as
	// key; ok is false when every slot is held.
	Acquire(ctx context.Context, key string, slots int) (slot int, ok bool, err error)
	// Release frees a slot Acquire gave.
	Release(ctx context.Context, key string, slot int) error
	// Renew extends every lease this process holds.
	Renew(ctx context.Context) error
}

// PoolServer is one model server of a Pool.
type PoolServer struct {
	// Name is how logs, /readyz, metrics and the admin page call it.
	Name string
	// Kind is the server's API ("ollama", "openai"), for display.
	Kind string
	// Key identifies the server across processes (its URL without
	// secrets), for Leases. Default Name.
	Key     string
	Backend Backend
	// Slots is how many calls the server answers at once. Default 1.
	Slots int
}

// PoolOptions configures a Pool; zero fields take their defaults.
type PoolOptions struct {
	Servers []PoolServer
	// Leases, when set, shares the slots with other processes. nil: this
	// process's slots only.
	Leases Leases
	Logger *slog.Logger
	Now    func() time.Time
	// CallTimeout bounds a model list or a show. Default DefaultCallTimeout.
	CallTimeout time.Duration
	Refresh     time.Duration // default DefaultRefresh
	RenewEvery  time.Duration // default DefaultRenewEvery
	LeasePoll   time.Duration // default DefaultLeasePoll
}

// Pool is the model servers yorozu uses and their slots: a call takes a
// free slot on a server that has its model (the least busy one), callers
// wait in one line for the whole pool, a server that fails is taken out
// with backoff. Run keeps the model lists fresh and the leases alive. It is
// safe for concurrent use.
type Pool struct {
	servers     []*server
	leases      Leases
	logger      *slog.Logger
	now         func() time.Time
	callTimeout time.Duration
	refresh     time.Duration
	renewEvery  time.Duration
	leasePoll   time.Duration

	mu      sync.Mutex
	waiters []*waiter
	// leaseErr is the lease store's last failure while the pool uses its
	// local slots only; nil while leases work.
	leaseErr     error
	leaseRetryAt time.Time

	capMu sync.Mutex
	caps  map[capKey]Capabilities
}

type capKey struct{ server, model string }

// server is a PoolServer and its state, guarded by Pool.mu.
type server struct {
	PoolServer
	inUse int
	// models are the names it lists (withTag form); nil until listed.
	models   map[string]bool
	names    []string
	listedAt time.Time
	down     bool
	downErr  error
	retryAt  time.Time
	backoff  time.Duration
	// busyUntil: every slot was held by other processes when last asked.
	busyUntil time.Time
	// warm are shared leases kept after their calls, for the next ones
	// here (slot.release); cooling is set while their give-back is due.
	warm    []int
	cooling bool
}

// waiter is a call waiting in the pool's line.
type waiter struct {
	model      string
	background bool
	exclude    []*server
	ready      chan *server  // receives the server whose slot it was given
	moved      chan struct{} // signalled (buffered 1) when its place improved
	granted    *server       // guarded by Pool.mu
}

// NewPool returns a pool of the servers in o.
func NewPool(o PoolOptions) *Pool {
	p := &Pool{
		leases: o.Leases, logger: o.Logger, now: o.Now, callTimeout: o.CallTimeout,
		refresh: o.Refresh, renewEvery: o.RenewEvery, leasePoll: o.LeasePoll,
		caps: map[capKey]Capabilities{},
	}
	if p.logger == nil {
		p.logger = slog.Default()
	}
	p.logger = p.logger.With(slog.String("component", "model_pool"))
	if p.now == nil {
		p.now = time.Now
	}
	if p.callTimeout <= 0 {
		p.callTimeout = DefaultCallTimeout
	}
	if p.refresh <= 0 {
		p.refresh = DefaultRefresh
	}
	if p.renewEvery <= 0 {
		p.renewEvery = DefaultRenewEvery
	}
	if p.leasePoll <= 0 {
		p.leasePoll = DefaultLeasePoll
	}
	for _, s := range o.Servers {
		if s.Slots < 1 {
			s.Slots = 1
		}
		if s.Key == "" {
			s.Key = s.Name
		}
		p.servers = append(p.servers, &server{PoolServer: s})
	}
	return p
}

// Run reads every server's models now and again every Refresh, probes a
// server taken out once its backoff is over, and renews the leases, until
// ctx ends.
func (p *Pool) Run(ctx context.Context) {
	var wg sync.WaitGroup
	if p.leases != nil {
		wg.Go(func() { p.renewLoop(ctx) })
	}
	p.Refresh(ctx)
	tick := time.NewTicker(min(p.refresh, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-tick.C:
			p.refreshDue(ctx)
		}
	}
}

func (p *Pool) renewLoop(ctx context.Context) {
	tick := time.NewTicker(p.renewEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			rctx, cancel := context.WithTimeout(ctx, leaseTimeout)
			err := p.leases.Renew(rctx)
			cancel()
			if ctx.Err() != nil {
				return
			}
			p.leaseOutcome(err)
		}
	}
}

// Refresh reads every server's model list now; a server that cannot list
// is taken out.
func (p *Pool) Refresh(ctx context.Context) {
	p.listAll(ctx, p.servers)
}

// listAll lists the servers at the same time.
func (p *Pool) listAll(ctx context.Context, servers []*server) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() { p.list(ctx, s) })
	}
	wg.Wait()
}

// refreshDue lists the servers whose list is old and probes the servers
// taken out whose backoff is over.
func (p *Pool) refreshDue(ctx context.Context) {
	now := p.now()
	var due []*server
	p.mu.Lock()
	for _, s := range p.servers {
		if (s.down && !now.Before(s.retryAt)) || (!s.down && now.Sub(s.listedAt) >= p.refresh) {
			due = append(due, s)
		}
	}
	p.mu.Unlock()
	p.listAll(ctx, due)
}

// list asks s for its models.
func (p *Pool) list(ctx context.Context, s *server) {
	lctx, cancel := context.WithTimeout(ctx, p.callTimeout)
	resp, err := s.Backend.List(lctx)
	cancel()
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		p.markDown(s, InterpretError(ctx, "list", "models", err))
		return
	}
	models := make(map[string]bool, len(resp.Models))
	names := make([]string, 0, len(resp.Models))
	for _, m := range resp.Models {
		models[withTag(m.Name)] = true
		names = append(names, m.Name)
	}
	sort.Strings(names)
	p.mu.Lock()
	s.models, s.names, s.listedAt = models, names, p.now()
	p.mu.Unlock()
	p.markUp(s)
}

// markDown takes s out after a failure: calls avoid it until its backoff is
// over, and the change is logged once.
func (p *Pool) markDown(s *server, err error) {
	p.mu.Lock()
	was := s.down
	if was {
		s.backoff = min(s.backoff*2, downMax)
	} else {
		s.backoff = downMin
	}
	s.down, s.downErr, s.retryAt = true, err, p.now().Add(s.backoff)
	p.mu.Unlock()
	if !was {
		p.logger.Warn("model server taken out of the pool", slog.String("server", s.Name), slog.Any("err", err))
	}
}

// markUp puts s back after it answered.
func (p *Pool) markUp(s *server) {
	p.mu.Lock()
	was := s.down
	s.down, s.downErr, s.backoff = false, nil, 0
	p.dispatchLocked()
	p.mu.Unlock()
	if was {
		p.logger.Info("model server back in the pool", slog.String("server", s.Name))
	}
}

// has reports whether s may serve model: it lists it, or has not been
// listed yet.
func (s *server) has(model string) bool {
	return s.models == nil || s.models[withTag(model)]
}

// usable reports whether s is in the pool now: up, or taken out with its
// backoff over (the next call tries it again).
func (s *server) usable(now time.Time) bool {
	return !s.down || !now.Before(s.retryAt)
}

// candidatesLocked are the servers a call for model may go to, best rule
// first: usable servers that have it; else servers that have it (all taken
// out: the call reports their failure); else any usable server, else any
// (no server has the model: the server's answer says so). exclude are the
// servers the call failed on already.
func (p *Pool) candidatesLocked(model string, exclude []*server) []*server {
	now := p.now()
	rules := []func(*server) bool{
		func(s *server) bool { return s.usable(now) && s.has(model) },
		func(s *server) bool { return s.has(model) },
		func(s *server) bool { return s.usable(now) },
		func(*server) bool { return true },
	}
	for _, ok := range rules {
		var out []*server
		for _, s := range p.servers {
			if ok(s) && !slices.Contains(exclude, s) {
				out = append(out, s)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// another reports whether a call for model that failed on the servers in
// tried has a usable server that has the model left.
func (p *Pool) another(model string, tried []*server) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for _, s := range p.servers {
		if !slices.Contains(tried, s) && s.usable(now) && s.has(model) {
			return true
		}
	}
	return false
}

// pickLocked is the candidate with a free slot and the shortest queue (the
// smallest share of its slots in use), nil when every one is full.
func (p *Pool) pickLocked(w *waiter) *server {
	now := p.now()
	var best *server
	for _, s := range p.candidatesLocked(w.model, w.exclude) {
		if s.inUse >= s.Slots || now.Before(s.busyUntil) {
			continue
		}
		if best == nil || s.inUse*best.Slots < best.inUse*s.Slots {
			best = s
		}
	}
	return best
}

// dispatchLocked gives free slots to the waiters in order. A waiter whose
// servers are full does not hold up one behind it that wants another
// server.
func (p *Pool) dispatchLocked() {
	for i := 0; i < len(p.waiters); {
		w := p.waiters[i]
		s := p.pickLocked(w)
		if s == nil {
			i++
			continue
		}
		s.inUse++
		w.granted = s
		w.ready <- s
		p.waiters = slices.Delete(p.waiters, i, i+1)
		p.notifyFromLocked(i)
	}
}

func (p *Pool) dispatch() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dispatchLocked()
}

// insertLocked puts w in line: a background waiter last, any other in
// front of the first background waiter. first puts it at the head of its
// kind (a waiter whose slot turned out to be held by another process).
func (p *Pool) insertLocked(w *waiter, first bool) int {
	bg := slices.IndexFunc(p.waiters, func(o *waiter) bool { return o.background })
	if bg < 0 {
		bg = len(p.waiters)
	}
	at := len(p.waiters)
	switch {
	case !w.background && first:
		at = 0
	case !w.background:
		at = bg
	case first:
		at = bg
	}
	p.waiters = slices.Insert(p.waiters, at, w)
	p.notifyFromLocked(at + 1)
	return at
}

func (p *Pool) notifyFromLocked(i int) {
	for _, w := range p.waiters[i:] {
		select {
		case w.moved <- struct{}{}:
		default:
		}
	}
}

// slot is a slot a call holds; release gives it back.
type slot struct {
	p     *Pool
	srv   *server
	lease int // the shared slot's number; -1 without one
}

// acquire takes a slot on a server for model, waiting in the pool's line
// when none is free. queued learns the 1-based place in line when the wait
// starts and each time it improves; an error from queued, or ctx ending,
// leaves the line. A background waiter lets every other waiter go first.
// exclude are servers not to use.
func (p *Pool) acquire(ctx context.Context, model string, background bool, exclude []*server, queued func(position int) error) (*slot, error) {
	if s := reserved(ctx, model, !background && len(exclude) == 0); s != nil {
		return s, nil
	}
	w := &waiter{model: model, background: background, exclude: exclude,
		ready: make(chan *server, 1), moved: make(chan struct{}, 1)}
	p.mu.Lock()
	p.insertLocked(w, false)
	p.dispatchLocked()
	p.mu.Unlock()
	last := 0
	report := func() error {
		p.mu.Lock()
		pos := slices.Index(p.waiters, w) + 1
		p.mu.Unlock()
		if pos > 0 && (last == 0 || pos < last) {
			last = pos
			return queued(pos)
		}
		return nil
	}
	if err := report(); err != nil {
		p.leave(w)
		return nil, err
	}
	for {
		select {
		case s := <-w.ready:
			if lease, ok := p.takeWarm(s); ok {
				return &slot{p: p, srv: s, lease: lease}, nil
			}
			lease, busy, err := p.lease(ctx, s)
			if err != nil {
				p.give(s)
				return nil, err
			}
			if !busy {
				return &slot{p: p, srv: s, lease: lease}, nil
			}
			// Another process holds every slot of s: wait in front.
			p.mu.Lock()
			s.inUse--
			s.busyUntil = p.now().Add(p.leasePoll)
			w.granted = nil
			p.insertLocked(w, true)
			p.dispatchLocked()
			p.mu.Unlock()
			time.AfterFunc(p.leasePoll, p.dispatch)
			if err := report(); err != nil {
				p.leave(w)
				return nil, err
			}
		case <-w.moved:
			if err := report(); err != nil {
				p.leave(w)
				return nil, err
			}
		case <-ctx.Done():
			p.leave(w)
			return nil, ctx.Err()
		}
	}
}

// leave takes w out of line; a slot given to it meanwhile is passed on.
func (p *Pool) leave(w *waiter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := w.granted; s != nil {
		select {
		case <-w.ready:
		default:
		}
		s.inUse--
		p.dispatchLocked()
		return
	}
	if i := slices.Index(p.waiters, w); i >= 0 {
		p.waiters = slices.Delete(p.waiters, i, i+1)
		p.notifyFromLocked(i)
	}
}

// give returns a local slot of s.
func (p *Pool) give(s *server) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s.inUse--
	p.dispatchLocked()
}

// release frees the slot. Its shared lease stays with this process for
// leaseLinger (warm): the next call here that gets the server — a turn
// waiting in line, or the channel's next question right after this answer
// — takes it without a round trip to the database. Other processes see
// the slot held that much longer.
func (sl *slot) release() {
	p := sl.p
	if sl.lease < 0 {
		p.give(sl.srv)
		return
	}
	s := sl.srv
	p.mu.Lock()
	s.warm = append(s.warm, sl.lease)
	cool := !s.cooling
	s.cooling = true
	s.inUse--
	p.dispatchLocked()
	p.mu.Unlock()
	if cool {
		time.AfterFunc(leaseLinger, func() { p.coolDown(s) })
	}
}

// leaseLinger is how long a slot's shared lease stays with this process
// after its call, for the next call here.
const leaseLinger = time.Second

// takeWarmLocked takes a lease of s kept after an earlier call; false when
// there is none. p.mu is held.
func (s *server) takeWarmLocked() (int, bool) {
	n := len(s.warm)
	if n == 0 {
		return 0, false
	}
	lease := s.warm[n-1]
	s.warm = s.warm[:n-1]
	return lease, true
}

// takeWarm is takeWarmLocked taking p.mu.
func (p *Pool) takeWarm(s *server) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return s.takeWarmLocked()
}

// coolDown gives back the leases of s that no call took since they were
// kept.
func (p *Pool) coolDown(s *server) {
	p.mu.Lock()
	leases := s.warm
	s.warm, s.cooling = nil, false
	p.mu.Unlock()
	for _, n := range leases {
		ctx, cancel := context.WithTimeout(context.Background(), leaseTimeout)
		p.leaseOutcome(p.leases.Release(ctx, s.Key, n))
		cancel()
	}
}

// lease takes a shared slot of s for a call that holds a local one: the
// slot's number, or busy when other processes hold every slot. While the
// lease store fails the pool uses its local slots only (-1), asking again
// every leaseRetry. err is ctx's when it ended.
func (p *Pool) lease(ctx context.Context, s *server) (slot int, busy bool, err error) {
	if p.leases == nil {
		return -1, false, nil
	}
	p.mu.Lock()
	skip := p.leaseErr != nil && p.now().Before(p.leaseRetryAt)
	p.mu.Unlock()
	if skip {
		return -1, false, nil
	}
	lctx, cancel := context.WithTimeout(ctx, leaseTimeout)
	n, ok, err := p.leases.Acquire(lctx, s.Key, s.Slots)
	cancel()
	if ctxErr := ctx.Err(); ctxErr != nil {
		if err == nil && ok {
			p.leaseOutcome(p.leases.Release(context.WithoutCancel(ctx), s.Key, n))
		}
		return -1, false, ctxErr
	}
	p.leaseOutcome(err)
	switch {
	case err != nil:
		return -1, false, nil
	case !ok:
		return -1, true, nil
	}
	return n, false, nil
}

// leaseOutcome notes whether the lease store answered, logging each change
// once.
func (p *Pool) leaseOutcome(err error) {
	p.mu.Lock()
	was := p.leaseErr
	p.leaseErr = err
	if err != nil {
		p.leaseRetryAt = p.now().Add(leaseRetry)
	}
	p.mu.Unlock()
	switch {
	case err != nil && was == nil:
		p.logger.Error("model slot leases unavailable: using this process's slots only", slog.Any("err", err))
	case err == nil && was != nil:
		p.logger.Info("model slot leases work again: slots are shared with the other processes")
	}
}

// LeaseErr is why the slots are not shared with other processes now (the
// database is away), nil while they are or when there are no Leases.
func (p *Pool) LeaseErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.leaseErr
}

// QueueLen is the number of calls waiting for a slot, the whole pool's.
func (p *Pool) QueueLen() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.waiters)
}

// ServerStatus is what the pool knows of one server now.
type ServerStatus struct {
	Name  string
	Kind  string
	Slots int
	InUse int // slots this process uses now
	Up    bool
	// Err is why the server was taken out; nil when up.
	Err error
	// Models are the models it listed, sorted; nil when not listed yet.
	Models   []string
	ListedAt time.Time
}

// Status lists the servers in their configured order.
func (p *Pool) Status() []ServerStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]ServerStatus, len(p.servers))
	for i, s := range p.servers {
		out[i] = ServerStatus{Name: s.Name, Kind: s.Kind, Slots: s.Slots, InUse: s.inUse, Up: !s.down, Err: s.downErr,
			Models: slices.Clone(s.names), ListedAt: s.listedAt}
	}
	return out
}

// List asks every server for its models now and returns them
// (ModelLister), each name once, so a model any server has counts as
// installed; a server that cannot list offers none. It fails only when no
// server can list.
func (p *Pool) List(ctx context.Context) (*api.ListResponse, error) {
	p.Refresh(ctx)
	var out api.ListResponse
	seen := map[string]bool{}
	p.mu.Lock()
	defer p.mu.Unlock()
	listed := false
	var errs []error
	for _, s := range p.servers {
		if s.downErr != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, s.downErr))
		}
		if s.models == nil || s.down {
			continue // a server taken out offers nothing until it is back
		}
		listed = true
		for _, n := range s.names {
			if !seen[withTag(n)] {
				seen[withTag(n)] = true
				out.Models = append(out.Models, api.ListModelResponse{Name: n, Model: n})
			}
		}
	}
	if !listed {
		return nil, fmt.Errorf("list models: %w: %w", ErrUnavailable, errors.Join(errs...))
	}
	return &out, nil
}

// ModelChoice is a model offered for chat and the servers that have it.
type ModelChoice struct {
	Name    string
	Servers []string // in the pool's order
	// Label is how a picker shows it: the name, with its servers when the
	// pool has more than one ("qwen3:4b (gpu1, gpu2)").
	Label string
}

// Size is the number of servers.
func (p *Pool) Size() int { return len(p.servers) }

// ChatModels are the models of every server that can chat, sorted by name,
// each with the servers that have it: a model whose capabilities say it
// only embeds is left out. It fails only when no server can list.
func (p *Pool) ChatModels(ctx context.Context) ([]ModelChoice, error) {
	if _, err := p.List(ctx); err != nil {
		return nil, err
	}
	byName := map[string]*ModelChoice{}
	var order []string
	type pair struct {
		s    *server
		name string
	}
	var pairs []pair
	p.mu.Lock()
	for _, s := range p.servers {
		if s.down {
			continue
		}
		for _, n := range s.names {
			pairs = append(pairs, pair{s, n})
		}
	}
	p.mu.Unlock()
	for _, pr := range pairs {
		key := withTag(pr.name)
		c, ok := byName[key]
		if !ok {
			caps, err := p.showOn(ctx, pr.s, pr.name)
			if err == nil && caps.EmbeddingOnly() {
				continue
			}
			c = &ModelChoice{Name: pr.name}
			byName[key] = c
			order = append(order, key)
		}
		if !slices.Contains(c.Servers, pr.s.Name) {
			c.Servers = append(c.Servers, pr.s.Name)
		}
	}
	sort.Strings(order)
	out := make([]ModelChoice, 0, len(order))
	for _, k := range order {
		c := *byName[k]
		c.Label = c.Name
		if len(p.servers) > 1 {
			c.Label += " (" + strings.Join(c.Servers, ", ") + ")"
		}
		out = append(out, c)
	}
	return out, nil
}

// capabilities is what model can do, asked of a server that has it (cached
// per server and model); a server that cannot be reached is taken out and
// the next one asked.
func (p *Pool) capabilities(ctx context.Context, model string) (Capabilities, error) {
	var tried []*server
	for {
		p.mu.Lock()
		cands := p.candidatesLocked(model, tried)
		p.mu.Unlock()
		if len(cands) == 0 {
			return Capabilities{}, fmt.Errorf("show %s: %w: no model server", model, ErrUnavailable)
		}
		s := cands[0]
		c, err := p.showOn(ctx, s, model)
		if err == nil || !errors.Is(err, ErrUnavailable) || ctx.Err() != nil {
			return c, err
		}
		p.markDown(s, err)
		tried = append(tried, s)
		if !p.another(model, tried) {
			return c, err
		}
	}
}

// showOn is model's capabilities on s, cached once known.
func (p *Pool) showOn(ctx context.Context, s *server, model string) (Capabilities, error) {
	key := capKey{s.Name, withTag(model)}
	p.capMu.Lock()
	c, ok := p.caps[key]
	p.capMu.Unlock()
	if ok {
		return c.clone(), nil
	}
	callCtx, cancel := context.WithTimeout(ctx, p.callTimeout)
	defer cancel()
	resp, err := s.Backend.Show(callCtx, &api.ShowRequest{Model: model})
	if err != nil {
		return Capabilities{}, InterpretError(ctx, "show", model, err)
	}
	c = capabilitiesFrom(resp)
	p.capMu.Lock()
	p.caps[key] = c
	p.capMu.Unlock()
	return c.clone(), nil
}

// forget drops what is known of model on s after s said it does not have
// it: its capabilities, and its place in s's list until the next refresh.
func (p *Pool) forget(s *server, model string) {
	p.capMu.Lock()
	delete(p.caps, capKey{s.Name, withTag(model)})
	p.capMu.Unlock()
	p.mu.Lock()
	if s.models != nil {
		delete(s.models, withTag(model))
	}
	p.mu.Unlock()
}
