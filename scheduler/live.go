package scheduler

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/yorozu-bot/yorozu/llm"
)

// PostSettings are what the admin page may change in a scheduled post
// while yorozu runs: where it goes, which model writes it, and when.
type PostSettings struct {
	Dest  Destination
	Model string
	Cron  string // "" is the job's default
}

// livePost holds a post's settings in force. Runs read them once at their
// start, so a change never splits a post between two destinations.
type livePost struct {
	job, defaultCron string

	mu    sync.Mutex // serialises apply
	sched *Scheduler // set by register; nil until then
	cur   atomic.Pointer[PostSettings]
}

func newLivePost(job, defaultCron string, p PostSettings) *livePost {
	l := &livePost{job: job, defaultCron: defaultCron}
	if p.Cron == "" {
		p.Cron = defaultCron
	}
	l.cur.Store(&p)
	return l
}

func (l *livePost) get() PostSettings { return *l.cur.Load() }

// register adds the job to s on the schedule in force.
func (l *livePost) register(s *Scheduler, fn JobFunc) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := s.AddPeriodic(l.job, l.get().Cron, fn); err != nil {
		return err
	}
	l.sched = s
	return nil
}

// runOnce runs fn for the slot at outside the queue, the way the
// registered job runs: JobDone hears how it ended and its model calls are a
// job's. Before register, fn runs alone (its model calls still a job's).
func (l *livePost) runOnce(ctx context.Context, fn JobFunc, at time.Time) error {
	l.mu.Lock()
	s := l.sched
	l.mu.Unlock()
	if s == nil {
		return fn(llm.WithKind(ctx, llm.KindJob), at)
	}
	return s.runJob(ctx, l.job, fn, at)
}

// apply puts p in force, moving the job to p's schedule when it changed. A
// bad schedule changes nothing.
func (l *livePost) apply(p PostSettings) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p.Cron == "" {
		p.Cron = l.defaultCron
	}
	if p.Cron != l.get().Cron {
		if l.sched != nil {
			if err := l.sched.Reschedule(l.job, p.Cron); err != nil {
				return err
			}
		} else if _, err := ParseCron(p.Cron, nil); err != nil {
			return fmt.Errorf("%s schedule: %w", l.job, err)
		}
	}
	l.cur.Store(&p)
	return nil
}
