package memory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// Backoff of the listener of context changes after its connection failed.
const (
	listenRetryFirst = 100 * time.Millisecond
	listenRetryMax   = 30 * time.Second
)

// newOrigin is the tag of this Memory's own turn writes, unique per process.
func newOrigin() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startListening follows the database's notices of context changes while
// ctx lasts; the cache is on only while it listens. A lost connection is
// logged once per outage and retried with backoff; meanwhile every Context
// reads the database.
func (m *Memory) startListening(ctx context.Context) {
	m.listenDone = make(chan struct{})
	log := m.opts.Logger.With("component", "context_cache")
	go func() {
		defer close(m.listenDone)
		backoff := listenRetryFirst
		failing := false
		for {
			err := db.ListenContextChanges(ctx, m.pool, func() {
				m.cache.setOn(true)
				if failing {
					log.Info("context cache: following changes again; cache on")
				}
				failing, backoff = false, listenRetryFirst
			}, m.changed)
			m.cache.setOn(false)
			if ctx.Err() != nil {
				return
			}
			if !failing {
				log.Warn("context cache: lost the database's change notices; cache off, retrying", "err", err)
				failing = true
			} else {
				log.Debug("context cache: still retrying", "in", backoff, "err", err)
			}
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			backoff = min(2*backoff, listenRetryMax)
		}
	}()
}

// changed drops what a notice says changed, unless this Memory wrote it
// (and has applied it already).
func (m *Memory) changed(ch db.ContextChange) {
	switch {
	case ch.Origin != "" && ch.Origin == m.origin:
	case ch.Key != "":
		m.dropKey(SessionKey(ch.Key))
	case ch.User != "":
		m.dropMember(Space(ch.Space), ch.User)
	case ch.Space != "":
		m.dropSpace(Space(ch.Space))
	default:
		m.dropAll()
	}
}

// dropKey, dropSpace, dropMember and dropAll forget what the cache holds of
// a conversation, a space, a member's facts in a space, or everything: an
// in-process write calls them as soon as it is done, so this process never
// reads its own change stale, not even until the notice arrives.
func (m *Memory) dropKey(key SessionKey) {
	m.cache.drop(func(k cacheKey, _ *contextReads) bool { return k.key == key })
}

func (m *Memory) dropSpace(space Space) {
	m.cache.drop(func(k cacheKey, _ *contextReads) bool { return k.space == space })
}

func (m *Memory) dropMember(space Space, userID string) {
	m.cache.drop(func(k cacheKey, _ *contextReads) bool { return k.space == space && k.speaker == userID })
}

// dropSession is dropKey for a write that knows its conversation by id only
// (a summary): the entries whose reads name it, and every read under way.
// It returns the keys of the entries dropped.
func (m *Memory) dropSession(id int64) []cacheKey {
	return m.cache.drop(func(_ cacheKey, r *contextReads) bool { return r == nil || r.names(id) })
}

// rewarm reads again what the cache held under keys, just dropped by this
// process's own write, so that the conversation's next turn finds it: a
// summary folds a conversation every few turns, and its next turn would
// otherwise wait for the reads. A failure leaves the entry to the next turn.
func (m *Memory) rewarm(ctx context.Context, keys []cacheKey) {
	for _, k := range keys {
		if _, err := m.contextReads(ctx, k.key, k.space, k.speaker); err != nil {
			m.log.Debug("context cache: not read again after a summary", "session", k.key, "err", err)
			return
		}
	}
}

func (m *Memory) dropAll() {
	m.cache.drop(func(cacheKey, *contextReads) bool { return true })
}
