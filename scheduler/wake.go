package scheduler

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// Reminders go out on time without River polling every few milliseconds:
// the scheduler knows when each reminder job is due and, at that moment,
// sends River's own insert notification for the reminders queue, which
// makes every process's producer fetch at once. It learns the due times
// from each job inserted here (insert middleware), from River's events
// for the jobs it retries or snoozes here and, every wakeReach,
// from River's table (jobs other processes inserted, retries, jobs left
// from before a restart). Between due times the queue polls only every
// Options.PollInterval, as a fallback; an idle process costs a few
// transactions a minute instead of twenty a second.
const (
	// wakeReach is how far ahead the table is read, and how often.
	wakeReach = time.Minute
	// wakeSlack is how long after a due time the queue is woken: River
	// fetches a job once its scheduled_at is past by the database's clock.
	wakeSlack = 10 * time.Millisecond
	// maxWakes bounds the due times kept; later ones wait for the next
	// read of the table (or the poll).
	maxWakes = 10000
	// riverInsertTopic and its payload are River's notification that a
	// queue has jobs to fetch (river's notifier.NotificationTopicInsert).
	riverInsertTopic = "river_insert"
)

// waker holds the due times of one queue's jobs and wakes the queue at
// each.
type waker struct {
	queue string
	log   *slog.Logger
	// notify sends the wake-up; due reads the table's due times up to a
	// time.
	notify func(ctx context.Context) error
	due    func(ctx context.Context, before time.Time) ([]time.Time, error)

	mu    sync.Mutex
	times []time.Time // sorted
	kick  chan struct{}
}

func newWaker(queue string, log *slog.Logger, notify func(context.Context) error, due func(context.Context, time.Time) ([]time.Time, error)) *waker {
	return &waker{queue: queue, log: log, notify: notify, due: due, kick: make(chan struct{}, 1)}
}

// add keeps due times to wake the queue at.
func (w *waker) add(ts ...time.Time) {
	w.mu.Lock()
	for _, t := range ts {
		t = t.Truncate(time.Millisecond)
		i, found := slices.BinarySearchFunc(w.times, t, time.Time.Compare)
		if found || (i == len(w.times) && len(w.times) >= maxWakes) {
			continue
		}
		w.times = slices.Insert(w.times, i, t)
		if len(w.times) > maxWakes {
			w.times = w.times[:maxWakes]
		}
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// next is the earliest due time kept (false: none).
func (w *waker) next() (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.times) == 0 {
		return time.Time{}, false
	}
	return w.times[0], true
}

// takeDue drops the due times up to now and reports whether there were any.
func (w *waker) takeDue(now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	i, _ := slices.BinarySearchFunc(w.times, now, time.Time.Compare)
	for i < len(w.times) && !w.times[i].After(now) {
		i++
	}
	w.times = w.times[i:]
	return i > 0
}

// run wakes the queue at the due times until ctx ends.
func (w *waker) run(ctx context.Context) {
	read := time.NewTimer(0)
	defer read.Stop()
	wake := time.NewTimer(time.Hour)
	defer wake.Stop()
	for {
		wait := time.Hour
		if t, ok := w.next(); ok {
			wait = max(time.Until(t.Add(wakeSlack)), 0)
		}
		wake.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-w.kick:
		case <-read.C:
			w.read(ctx)
			read.Reset(wakeReach)
		case <-wake.C:
			if !w.takeDue(time.Now().Add(-wakeSlack)) {
				continue
			}
			nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			if err := w.notify(nctx); err != nil && ctx.Err() == nil {
				// The queue's poll picks the job up instead.
				w.log.Debug("wake the queue", "queue", w.queue, "err", err)
			}
			cancel()
		}
	}
}

// follow keeps the new due times of the queue's jobs that River retries or
// snoozes, told by its events, until ctx ends or events closes. A retry or
// snooze shorter than River's scheduler interval leaves the job available
// with a later scheduled_at: no scheduler pass notifies for it, so it too
// needs its wake-up.
func (w *waker) follow(ctx context.Context, events <-chan *river.Event) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Job == nil || ev.Job.Queue != w.queue {
				continue
			}
			switch ev.Job.State {
			case rivertype.JobStateAvailable, rivertype.JobStateRetryable, rivertype.JobStateScheduled:
				w.add(ev.Job.ScheduledAt)
			}
		}
	}
}

// read adds the due times of the jobs in River's table up to a little
// beyond the next read.
func (w *waker) read(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ts, err := w.due(rctx, time.Now().Add(wakeReach+wakeReach/2))
	if err != nil {
		if ctx.Err() == nil {
			w.log.Debug("read due jobs", "queue", w.queue, "err", err)
		}
		return
	}
	w.add(ts...)
}

// riverWake is the notify of a waker: River's insert notification for
// queue, sent as River sends it.
func riverWake(exec func() riverdriver.Executor, queue string) func(context.Context) error {
	payload := `{"queue": "` + queue + `"}`
	return func(ctx context.Context) error {
		return exec().NotifyMany(ctx, &riverdriver.NotifyManyParams{Payload: []string{payload}, Topic: riverInsertTopic})
	}
}
