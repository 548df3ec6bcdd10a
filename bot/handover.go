package bot

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
)

// How often a standby tries to take the gateway over, and how often the
// holder proves it still holds it.
const (
	standbyPoll = 2 * time.Second
	// heartbeatEvery is how often the holder records that it holds the
	// gateway (gateway_heartbeats, for the next holder's catch-up), in one
	// statement on the lock's own connection that is also the check that
	// the lock is still held. Between heartbeats the holder only waits on
	// that connection, which costs the database nothing and sees it end (a
	// restart, a failover) at once; the heartbeat finds one that went
	// silent. The catch-up after a hand-over reads from one heartbeatEvery
	// before the last heartbeat, so a longer interval costs only a longer
	// read of the channels' history then.
	heartbeatEvery = 30 * time.Second
	// Mention claims are kept claimsKept, pruned every claimsPruneEvery.
	claimsKept       = 24 * time.Hour
	claimsPruneEvery = time.Hour
)

// Handover lets one of the processes sharing a database hold a bot token's
// gateway (two connections would answer every mention twice) through a
// Postgres advisory lock: the first to take it connects, the others stand
// by and the first of them to take the lock once it is free connects. A
// standby still sends over REST (reminders, posts).
type Handover struct {
	bot  *Bot
	pool *pgxpool.Pool
	key  int64
	log  *slog.Logger
	// lost is called when taking the gateway over failed for good (the
	// bot could not start: ctx ended).
	lost func(error)

	lock    atomic.Pointer[db.Lock]
	standby atomic.Bool
	// away is set when this process left the gateway because its database
	// connection died: mentions it then missed were missed for that.
	away atomic.Bool
}

// NewHandover returns the handover of b's gateway among the processes
// using pool; lost learns that taking the gateway failed for good.
func NewHandover(b *Bot, pool *pgxpool.Pool, lost func(error)) *Handover {
	return &Handover{bot: b, pool: pool, key: lockKey(b.opts.Token), log: b.log, lost: lost}
}

// lockKey is the advisory lock of one bot token.
func lockKey(token string) int64 {
	h := fnv.New64a()
	h.Write([]byte("yorozu discord gateway\x00" + token))
	return int64(h.Sum64())
}

// Start connects the bot if no other process holds the gateway, else
// stands by in the background until ctx ends.
func (h *Handover) Start(ctx context.Context) error {
	lock, err := db.TryLock(ctx, h.pool, h.key)
	switch {
	case errors.Is(err, db.ErrLocked):
		h.standby.Store(true)
		h.log.Info("another yorozu holds the Discord gateway for this token; standing by to take over")
		go h.standBy(ctx, false)
		return nil
	case err != nil:
		return err
	}
	return h.lead(ctx, lock)
}

// Standby reports whether another process holds the gateway.
func (h *Handover) Standby() bool { return h.standby.Load() }

// Release gives the lock back, for a standby to take over at once.
func (h *Handover) Release(ctx context.Context) error {
	if lock := h.lock.Swap(nil); lock != nil {
		return lock.Release(ctx)
	}
	return nil
}

// lead connects the bot while holding lock and watches the lock. Once
// connected, the bot catches up on the mentions sent since the gateway was
// last held, by this process or another.
func (h *Handover) lead(ctx context.Context, lock *db.Lock) error {
	h.lock.Store(lock)
	hctx, cancel := context.WithTimeout(ctx, storeTimeout)
	since, held, err := db.GatewaySeenAt(hctx, h.pool, h.key)
	if err == nil {
		err = db.TouchGateway(hctx, h.pool, h.key, time.Now())
	}
	cancel()
	if err != nil {
		h.log.Warn("gateway heartbeat: mentions sent before this start are not caught up", "err", err)
	}
	if held {
		// The last heartbeat may be up to heartbeatEvery older than the loss.
		h.bot.CatchUpNext(since.Add(-heartbeatEvery), h.away.Swap(false))
	}
	// Start returns after the first attempt; a Discord that is down or
	// refuses is retried in the background and reported by Status.
	if err := h.bot.Start(ctx); err != nil {
		return fmt.Errorf("connect to Discord: %w", err)
	}
	h.standby.Store(false)
	go h.watch(ctx, lock)
	return nil
}

// watch checks that this process still holds lock. When it does not (its
// database connection died: a restart, a failover), another process may
// take the gateway, so this one leaves it and stands by — to take it back
// as soon as the database answers and the lock is free.
func (h *Handover) watch(ctx context.Context, lock *db.Lock) {
	var pruned time.Time
	for {
		wctx, cancel := context.WithTimeout(ctx, heartbeatEvery)
		err := lock.Wait(wctx)
		cancel()
		if ctx.Err() != nil || h.lock.Load() != lock {
			return // stopping, or released
		}
		if err == nil {
			cctx, cancel := context.WithTimeout(ctx, storeTimeout)
			err = lock.Check(cctx, func(ctx context.Context, q db.Querier) error {
				return db.TouchGateway(ctx, q, h.key, time.Now())
			})
			if err == nil && time.Since(pruned) >= claimsPruneEvery {
				pruned = time.Now()
				h.prune(cctx)
			}
			cancel()
		}
		if err == nil || ctx.Err() != nil {
			continue
		}
		if !errors.Is(err, db.ErrLockLost) {
			h.log.Debug("gateway heartbeat", "err", err)
			continue
		}
		if !h.lock.CompareAndSwap(lock, nil) {
			return // released meanwhile
		}
		h.log.Error("lost the Discord gateway lock (database connection gone); leaving the gateway and standing by", "err", err)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		_ = lock.Release(rctx) // closes the dead connection; the server freed the lock with it
		cancel()
		h.standby.Store(true)
		h.away.Store(true)
		h.bot.Leave()
		h.standBy(ctx, true) // the loss was said: the database's absence need not be
		return
	}
}

// prune forgets the mention claims no catch-up can need any more.
func (h *Handover) prune(ctx context.Context) {
	if _, err := db.PruneMentionClaims(ctx, h.pool, time.Now().Add(-claimsKept)); err != nil {
		h.log.Debug("prune mention claims", "err", err)
	}
}

// standBy tries to take the gateway over until it does or ctx ends;
// failing says the database is known to be away already.
func (h *Handover) standBy(ctx context.Context, failing bool) {
	t := time.NewTicker(standbyPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		lock, err := db.TryLock(ctx, h.pool, h.key)
		if errors.Is(err, db.ErrLocked) {
			continue
		}
		if err != nil {
			// Said once while the database is away, not every poll.
			if ctx.Err() == nil && !failing {
				h.log.Warn("standby: cannot try the Discord gateway lock; trying every 2 s", "err", err)
			} else if ctx.Err() == nil {
				h.log.Debug("standby: try the Discord gateway lock", "err", err)
			}
			failing = true
			continue
		}
		h.log.Info("taking over the Discord gateway")
		if err := h.lead(ctx, lock); err != nil {
			h.lost(err)
		}
		return
	}
}
