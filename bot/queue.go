package bot

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/chat"
)

// channelQueue holds the turns of one channel waiting to be answered. One
// worker per non-empty queue answers them in order; different channels run
// in parallel (the pipeline bounds LLM concurrency and reports queueing).
type channelQueue struct {
	jobs []*queuedTurn
	// finishing is set once the running turn's answer is complete: what
	// is left of it (keeping it) takes moments, so a turn arriving now
	// is told its place only if it still waits after finishingGrace.
	finishing bool
}

// finishingGrace is how long a turn behind one whose answer is complete
// waits before it is told its place: usually it starts before, and the
// notice (a write, and an edit to turn it into the answer) is saved.
const finishingGrace = time.Second

// queuedTurn is a turn waiting in its channel. A turn that has to wait
// behind another gets a notice at once, telling its place in line; the
// notice follows the line and becomes the answer when the turn starts.
type queuedTurn struct {
	req    chat.Request
	place  chan int      // latest place in line (buffered, newest wins)
	start  chan struct{} // closed when the turn is answered or dropped
	notice chan *sentMessage
	posted chan struct{} // closed once the notice was tried: the next may go
	drop   bool          // set before start is closed when the bot stops
	// again, for a 再生成, is the answer's message the new answer takes
	// over; such a turn posts no waiting notice.
	again *sentMessage
	// hourglass says (once) whether ⏳ went on the user's message while
	// the turn waited; nil when it never waited.
	hourglass chan bool
}

// queuedText tells a waiting user their place; the running turn is 1.
func queuedText(place int) string { return fmt.Sprintf("⏳ 順番待ち: %d 番目", place) }

// enqueue adds a turn to its channel's queue, starting the worker if idle.
// It reports false, queueing nothing, when MaxWaiting turns already wait
// there. A stopping bot drops the turn (true: nothing to tell the user).
func (b *Bot) enqueue(req chat.Request) bool {
	return b.enqueueTurn(&queuedTurn{req: req})
}

// enqueueTurn is enqueue of a turn built by the caller (a 再生成).
func (b *Bot) enqueueTurn(t *queuedTurn) bool {
	req := t.req
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopping {
		return true
	}
	q, busy := b.queues[req.ChannelID]
	if !busy {
		q = &channelQueue{}
		b.queues[req.ChannelID] = q
	}
	if q.waiting() >= b.opts.MaxWaiting {
		return false
	}
	var prev chan struct{} // the notice before this one, posted first
	if n := len(q.jobs); n > 0 {
		prev = q.jobs[n-1].posted
	}
	q.jobs = append(q.jobs, t)
	if !busy {
		b.wg.Add(1)
		go b.drain(req.ChannelID, q)
		return true
	}
	// One turn is running; this one waits behind it and the others.
	t.place, t.start, t.notice = make(chan int, 1), make(chan struct{}), make(chan *sentMessage, 1)
	t.posted = make(chan struct{})
	if t.again == nil && b.opts.Reactions {
		t.hourglass = make(chan bool, 1)
		b.wg.Add(1)
		go b.hourglassWhileWaiting(t)
	}
	b.wg.Add(1)
	if t.again != nil {
		close(t.posted)
		go func() {
			defer b.wg.Done()
			<-t.start
			t.notice <- nil
		}()
		return true
	}
	var grace time.Duration
	if q.finishing {
		grace = finishingGrace
	}
	go b.waitInLine(t, len(q.jobs)+1, prev, grace)
	return true
}

// finishing marks the running turn of channelID as complete for its user
// (see channelQueue.finishing).
func (b *Bot) finishing(channelID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if q, ok := b.queues[channelID]; ok {
		q.finishing = true
	}
}

// waiting counts the turns waiting behind the running one. The first turn
// of an idle channel (no start channel) is about to run, not waiting.
func (q *channelQueue) waiting() int {
	n := 0
	for _, t := range q.jobs {
		if t.start != nil {
			n++
		}
	}
	return n
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
		t := q.jobs[0]
		q.jobs = q.jobs[1:]
		q.finishing = false
		for i, w := range q.jobs {
			w.moveTo(i + 2)
		}
		b.mu.Unlock()
		var notice *sentMessage
		if t.start != nil {
			close(t.start)
			notice = <-t.notice
		}
		if t.again != nil {
			b.answerAgain(t.req, t.again)
			continue
		}
		// The next turn starts once this one is released: its answer is
		// complete and it is in the session's context (chat.Request.
		// Release), or it ended. What is left of it (storing it, its
		// files, its ids) goes on beside the next.
		released := make(chan struct{})
		var once sync.Once
		release := func() { once.Do(func() { close(released) }) }
		req := t.req
		req.Release = func() {
			b.answered(req)
			release()
		}
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			defer release()
			b.handle(req, notice, t.hourglass)
		}()
		<-released
	}
}

// moveTo tells a waiting turn its new place. b.mu is held.
func (t *queuedTurn) moveTo(place int) {
	select {
	case <-t.place:
	default:
	}
	t.place <- place
}

// dropQueued gives up the turns still waiting (the bot is stopping) and
// returns how many there were. b.mu is held.
func (b *Bot) dropQueued() int {
	n := 0
	for _, q := range b.queues {
		for _, t := range q.jobs {
			if t.start != nil {
				t.drop = true
				close(t.start)
			}
		}
		n += len(q.jobs)
		q.jobs = nil
	}
	return n
}

// waitInLine posts the waiting notice of t, edits it as the line moves and,
// when t's turn comes, hands the message over to the answer.
// Notices of one channel are posted in the order of the line (after prev).
// With a grace, the notice waits that long first and is not posted at all
// when the turn starts meanwhile.
func (b *Bot) waitInLine(t *queuedTurn, place int, prev chan struct{}, grace time.Duration) {
	defer b.wg.Done()
	defer b.recoverEvent("queue notice")
	r := newReply(b, t.req)
	var notice *sentMessage
	defer func() { t.notice <- notice }()
	if grace > 0 {
		timer := time.NewTimer(grace)
		select {
		case <-t.start:
			timer.Stop()
			close(t.posted)
			return
		case <-timer.C:
		}
	}
	if prev != nil {
		select {
		case <-prev:
		case <-t.start:
		}
	}
	select {
	case p := <-t.place: // the line moved while waiting for prev
		place = p
	default:
	}
	text := queuedText(place)
	id, err := r.send(b.ctx, 0, text, true, "")
	close(t.posted)
	if err != nil {
		b.log.Warn("discord queue notice failed", "channel_id", t.req.ChannelID, "err", err)
	} else {
		notice = &sentMessage{id: id, content: text}
	}
	for {
		select {
		case <-t.start:
			if t.drop && notice != nil {
				if err := r.edit(b.ctx, notice.id, stoppedQueuedReply); err != nil {
					b.log.Warn("discord queue notice edit failed", "channel_id", t.req.ChannelID, "err", err)
				}
			}
			return
		case p := <-t.place:
			if notice == nil || queuedText(p) == notice.content {
				continue
			}
			if err := r.edit(b.ctx, notice.id, queuedText(p)); err != nil {
				b.log.Debug("discord queue notice edit failed", "channel_id", t.req.ChannelID, "err", err)
				continue
			}
			notice.content = queuedText(p)
		}
	}
}

// handle answers one turn, recovering from panics so the channel keeps
// going. notice is the turn's waiting notice, if it had one: the answer
// takes its place. hourglass says whether ⏳ is on the user's message, to
// be removed.
func (b *Bot) handle(req chat.Request, notice *sentMessage, hourglass <-chan bool) {
	defer b.recoverEvent("answer")
	failed := false
	defer func() { b.goSettleReactions(req, hourglass, failed) }()
	claim := b.tryClaim(req)
	thread := b.opensThread(req)
	if req.Text == "" || len(req.Attachments) > 0 || thread {
		// These write before the model call (a notice, the documents
		// kept, a thread): the claim comes first.
		if !b.claim(req, notice, claim) {
			return
		}
		claim = nil
	}
	if req.Text == "" && len(req.Attachments) == 0 {
		b.notice(b.ctx, req, notice, emptyMentionReply)
		return
	}
	if thread {
		parent := req.ChannelID
		req = b.openThread(b.ctx, req)
		if notice != nil && req.ChannelID != parent {
			// The waiting notice stays behind in the channel: say where
			// the answer went instead.
			b.notice(b.ctx, chat.Request{ChannelID: parent, GuildID: req.GuildID, MessageID: req.MessageID}, notice,
				movedToThreadText(req.ChannelID))
			notice = nil
		}
	}
	err := b.answer(b.ctx, req, notice, claim)
	if errors.Is(err, errUnclaimed) {
		// The claim could not be made beside the context: it is made now,
		// waiting for the database if need be, and the turn starts again.
		if !b.claim(req, notice, claim) {
			return
		}
		err = b.answer(b.ctx, req, notice, nil)
	}
	failed = err != nil
}

// goNotice replies with a fixed text outside the channel queue, so a notice
// is not held up behind a long answer.
func (b *Bot) goNotice(req chat.Request, text string) {
	b.goEvent("notice", func() { b.notice(b.ctx, req, nil, text) })
}
