package memory

import (
	"context"
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// Small talk picks its topic from what a space talked about lately
// (db.RecentTags). A turn must not wait for that read before its model
// call, so each space's tags are kept: read once, on the space's first
// small talk; read again in the background after this process tags a
// turn of the space (so the next small talk knows it), and when the kept
// tags are older than Options.TopicTagsRefresh (other processes' turns,
// new summaries).
const (
	defaultTopicTagsRefresh = 30 * time.Second
	// maxTopicSpaces bounds the spaces whose tags are kept (a few hundred
	// bytes to 15 KB each); the least lately asked go first.
	maxTopicSpaces = 256
)

type topicTags struct {
	mu     sync.Mutex
	spaces map[Space]*spaceTags
}

type spaceTags struct {
	tags       []db.RecentTag
	readAt     time.Time // monotonic: a cache's age, not a message's time
	usedAt     time.Time
	refreshing bool
}

// recentTags returns space's recent tags for a topic: the kept ones (read
// again in the background when older than TopicTagsRefresh), or, the
// first time, read now.
func (m *Memory) recentTags(ctx context.Context, space Space) ([]db.RecentTag, error) {
	now := time.Now()
	m.topics.mu.Lock()
	st := m.topics.spaces[space]
	if st != nil {
		st.usedAt = now
		tags := st.tags
		stale := now.Sub(st.readAt) > m.opts.TopicTagsRefresh && !st.refreshing
		if stale {
			st.refreshing = true
		}
		m.topics.mu.Unlock()
		if stale && !m.bg.run(func(ctx context.Context) { m.refreshTopicTags(ctx, space) }) {
			m.topics.done(space) // the queue is full: the next turn asks again
		}
		return tags, nil
	}
	m.topics.mu.Unlock()

	tags, err := db.RecentTags(ctx, m.pool, string(space), topicMessages, topicSummaries)
	if err != nil {
		return nil, err
	}
	m.topics.keep(space, tags, now)
	return tags, nil
}

// refreshTopicTags reads space's recent tags again if they are kept (a
// space that never had small talk is not read). Background work: a
// failure is logged and the kept tags stay.
func (m *Memory) refreshTopicTags(ctx context.Context, space Space) {
	if !m.topics.kept(space) {
		return
	}
	defer m.topics.done(space)
	readAt := time.Now()
	tags, err := db.RecentTags(ctx, m.pool, string(space), topicMessages, topicSummaries)
	if err != nil {
		m.log.Warn("read recent tags for small talk", "space", space, "err", err)
		return
	}
	m.topics.keep(space, tags, readAt)
}

func (t *topicTags) kept(space Space) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.spaces[space] != nil
}

// keep stores tags read at readAt, unless newer ones are kept already.
func (t *topicTags) keep(space Space, tags []db.RecentTag, readAt time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.spaces == nil {
		t.spaces = map[Space]*spaceTags{}
	}
	st := t.spaces[space]
	if st == nil {
		if len(t.spaces) >= maxTopicSpaces {
			t.evictLocked()
		}
		st = &spaceTags{usedAt: readAt}
		t.spaces[space] = st
	}
	if readAt.After(st.readAt) {
		st.tags, st.readAt = tags, readAt
	}
}

// done ends a background read of space's tags.
func (t *topicTags) done(space Space) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.spaces[space]; st != nil {
		st.refreshing = false
	}
}

// evictLocked forgets the space whose tags were asked for least lately.
func (t *topicTags) evictLocked() {
	var oldest Space
	var at time.Time
	for s, st := range t.spaces {
		if at.IsZero() || st.usedAt.Before(at) {
			oldest, at = s, st.usedAt
		}
	}
	delete(t.spaces, oldest)
}
