package bot

import (
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/chat"
)

// channelQueue holds the turns of one channel waiting to be answered. One
// worker per non-empty queue answers them in order; different channels run
// in parallel (the pipeline bounds LLM concurrency and reports queueing).
type channelQueue struct {
	jobs []chat.Request
}

// enqueue adds a turn to its channel's queue, starting the worker if idle.
func (b *Bot) enqueue(req chat.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopping {
		return
	}
	q, busy := b.queues[req.ChannelID]
	if !busy {
		q = &channelQueue{}
		b.queues[req.ChannelID] = q
	}
	q.jobs = append(q.jobs, req)
	if !busy {
		b.wg.Add(1)
		go b.drain(req.ChannelID, q)
	}
}

// drain answers a channel's turns one after another and exits when the queue
// is empty.
func (b *Bot) drain(channelID string, q *channelQueue) {
	defer b.wg.Done()
	for {
		b.mu.Lock()
		if len(q.jobs) == 0 || b.stopping {
			delete(b.queues, channelID)
			b.mu.Unlock()
			return
		}
		req := q.jobs[0]
		q.jobs = q.jobs[1:]
		b.mu.Unlock()
		b.handle(req)
	}
}

// handle answers one turn, recovering from panics so the channel keeps going.
func (b *Bot) handle(req chat.Request) {
	defer b.recoverEvent("answer")
	if req.Text == "" && len(req.Attachments) == 0 {
		b.notice(b.ctx, req, emptyMentionReply)
		return
	}
	b.answer(b.ctx, req)
}

// goNotice replies with a fixed text outside the channel queue, so a notice
// is not held up behind a long answer.
func (b *Bot) goNotice(req chat.Request, text string) {
	b.mu.Lock()
	if b.stopping {
		b.mu.Unlock()
		return
	}
	b.wg.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.wg.Done()
		defer b.recoverEvent("notice")
		b.notice(b.ctx, req, text)
	}()
}

// limiter is a per-user sliding-window rate limit.
type limiter struct {
	limit  int
	window time.Duration

	mu     sync.Mutex
	hits   map[string][]time.Time
	warned map[string]bool
}

func newLimiter(limit int, window time.Duration) *limiter {
	return &limiter{limit: limit, window: window, hits: map[string][]time.Time{}, warned: map[string]bool{}}
}

// allow records a turn by user at now if the user is under the limit. When
// not allowed, notify is true the first time only, so a user hammering the
// bot gets one notice per episode.
func (l *limiter) allow(user string, now time.Time) (allowed, notify bool) {
	if l.limit <= 0 {
		return true, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	hits := l.hits[user]
	keep := hits[:0]
	for _, t := range hits {
		if now.Sub(t) < l.window {
			keep = append(keep, t)
		}
	}
	if len(keep) < l.limit {
		l.hits[user] = append(keep, now)
		delete(l.warned, user)
		return true, false
	}
	l.hits[user] = keep
	notify = !l.warned[user]
	l.warned[user] = true
	return false, notify
}
