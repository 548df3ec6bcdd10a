package scheduler

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
)

// slots records the slots a periodic job ran for.
type slots struct {
	mu      sync.Mutex
	runs    map[time.Time]int
	changed chan struct{}
}

func newSlots() *slots { return &slots{runs: map[time.Time]int{}, changed: make(chan struct{}, 1)} }

func (s *slots) job(ctx context.Context, at time.Time) error {
	s.mu.Lock()
	s.runs[at.UTC()]++
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return nil
}

func (s *slots) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs)
}

func (s *slots) waitCount(t *testing.T, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for s.count() < n {
		select {
		case <-s.changed:
		case <-deadline:
			t.Fatalf("%d slots ran, want %d", s.count(), n)
		}
	}
}

func TestPeriodicOncePerSlotAcrossProcesses(t *testing.T) {
	pool := newPool(t)
	rec := newSlots()
	var procs []*Scheduler
	for _, id := range []string{"a", "b"} {
		s := newScheduler(t, pool, nil, Options{ClientID: id})
		if err := s.AddPeriodic("tick", "* * * * * *", rec.job); err != nil { // every second
			t.Fatal(err)
		}
		start(t, s)
		procs = append(procs, s)
	}
	rec.waitCount(t, 3, 20*time.Second)

	// Hand leadership over: the other process takes up the schedule.
	if err := procs[0].Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := rec.count()
	rec.waitCount(t, n+2, 30*time.Second)
	if err := procs[1].Stop(context.Background()); err != nil {
		t.Fatal(err)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	for slot, k := range rec.runs {
		if k != 1 {
			t.Errorf("slot %s ran %d times", slot.Format(time.RFC3339Nano), k)
		}
		if !slot.Equal(slot.Truncate(time.Second)) {
			t.Errorf("slot %s is not a cron time", slot.Format(time.RFC3339Nano))
		}
	}
}

func TestPeriodicSlotInsertedTwiceRunsOnce(t *testing.T) {
	pool := newPool(t)
	a := newScheduler(t, pool, nil, Options{ClientID: "a"})
	b := newScheduler(t, pool, nil, Options{ClientID: "b"})
	slot := time.Date(2026, 12, 1, 6, 30, 0, 0, jst)
	for i, s := range []*Scheduler{a, b, a} {
		res, err := s.client.Insert(context.Background(), namedJobArgs{Name: "weather"}, &river.InsertOpts{ScheduledAt: slot})
		if err != nil {
			t.Fatal(err)
		}
		if res.UniqueSkippedAsDuplicate != (i > 0) {
			t.Errorf("insert %d: skipped = %v", i, res.UniqueSkippedAsDuplicate)
		}
	}
	res, err := b.client.Insert(context.Background(), namedJobArgs{Name: "weather"}, &river.InsertOpts{ScheduledAt: slot.Add(24 * time.Hour)})
	if err != nil || res.UniqueSkippedAsDuplicate {
		t.Errorf("next day's slot: %+v, %v; want inserted", res, err)
	}
}

func TestRunNow(t *testing.T) {
	pool := newPool(t)
	now := time.Date(2026, 12, 1, 6, 30, 0, 0, jst)
	s := newScheduler(t, pool, nil, Options{Now: func() time.Time { return now }})
	boom := errors.New("boom")
	var ranAt time.Time
	if err := s.AddPeriodic("weather", "30 6 * * *", func(_ context.Context, at time.Time) error { ranAt = at; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.AddJob("tips", func(context.Context, time.Time) error { return boom }); err != nil {
		t.Fatal(err)
	}
	if err := s.AddJob("tips", func(context.Context, time.Time) error { return nil }); err == nil {
		t.Error("adding a name twice succeeded")
	}
	if err := s.AddPeriodic("bad", "61 * * * *", func(context.Context, time.Time) error { return nil }); err == nil {
		t.Error("a bad cron expression was accepted")
	}

	if err := s.RunNow(context.Background(), "weather"); err != nil || !ranAt.Equal(now) {
		t.Errorf("run weather: %v, ran at %s", err, ranAt)
	}
	if err := s.RunNow(context.Background(), "tips"); !errors.Is(err, boom) {
		t.Errorf("run tips: %v, want boom", err)
	}
	if err := s.RunNow(context.Background(), "nope"); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("run nope: %v, want ErrUnknownJob", err)
	}
	if got := s.Jobs(); len(got) != 2 || got[0] != "tips" || got[1] != "weather" {
		t.Errorf("jobs = %v", got)
	}
}

func TestParseCronInLocation(t *testing.T) {
	sched, err := ParseCron("30 6 * * *", jst)
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) // 09:00 JST
	want := time.Date(2026, 12, 2, 6, 30, 0, 0, jst)
	if got := sched.Next(from); !got.Equal(want) {
		t.Errorf("next = %s, want %s", got, want)
	}
}

// A job that panics fails its run, run now or by the queue, and the process
// goes on: the next job still runs.
func TestPanickingJobFailsItsRun(t *testing.T) {
	pool := newPool(t)
	done := make(chan error, 10)
	s := newScheduler(t, pool, nil, Options{JobDone: func(name string, err error) {
		if name == "boom" {
			done <- err
		}
	}})
	if err := s.AddJob("boom", func(context.Context, time.Time) error { panic("nil map") }); err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{}, 1)
	if err := s.AddJob("fine", func(context.Context, time.Time) error { ran <- struct{}{}; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.RunNow(context.Background(), "boom"); err == nil || !strings.Contains(err.Error(), "panicked: nil map") {
		t.Errorf("run boom: %v, want a panic error", err)
	}
	if err := <-done; err == nil {
		t.Error("JobDone heard success for a panic")
	}
	start(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, name := range []string{"boom", "fine"} {
		if _, err := s.client.Insert(ctx, namedJobArgs{Name: name}, &river.InsertOpts{MaxAttempts: 1}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "panicked") {
			t.Errorf("queued run of boom: %v, want a panic error", err)
		}
	case <-ctx.Done():
		t.Fatal("the queued panicking job never ended")
	}
	select {
	case <-ran:
	case <-ctx.Done():
		t.Fatal("the next job never ran")
	}
}
