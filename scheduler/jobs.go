package scheduler

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/robfig/cron/v3"

	"github.com/yorozu-bot/yorozu/llm"
)

// JobFunc is the work of a named job. at is the slot it runs for: the cron
// time for a periodic run, the current time for RunNow.
type JobFunc func(ctx context.Context, at time.Time) error

// ErrUnknownJob is returned by RunNow for a name no job was added under.
var ErrUnknownJob = errors.New("unknown job")

var jobName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// cronParser reads the standard five fields, descriptors (@daily, @every 1h)
// and, for schedules finer than a minute, an optional leading seconds field.
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// AddJob registers fn under name, for RunNow (`yorozu jobs run NAME`) and for
// AddPeriodic. A name may be added once.
func (s *Scheduler) AddJob(name string, fn JobFunc) error {
	if !jobName.MatchString(name) {
		return fmt.Errorf("add job %q: name must match %s", name, jobName)
	}
	if fn == nil {
		return fmt.Errorf("add job %s: nil function", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.jobs[name]; dup {
		return fmt.Errorf("add job %s: already added", name)
	}
	s.jobs[name] = fn
	return nil
}

// AddPeriodic registers fn under name (as AddJob) and runs it on the cron
// schedule cronExpr, read in Options.Location ("30 6 * * *" is 06:30 there;
// a sixth, leading seconds field is allowed). Each slot runs once across all
// processes sharing the database. It may be called before or after Start.
func (s *Scheduler) AddPeriodic(name, cronExpr string, fn JobFunc) error {
	sched, err := ParseCron(cronExpr, s.opts.Location)
	if err != nil {
		return fmt.Errorf("add periodic job %s: %w", name, err)
	}
	if err := s.AddJob(name, fn); err != nil {
		return err
	}
	if err := s.schedule(name, sched); err != nil {
		return fmt.Errorf("add periodic job %s: %w", name, err)
	}
	return nil
}

// Reschedule moves the periodic job added under name to the cron schedule
// cronExpr from its next slot on; slots already enqueued keep their time.
// The admin page calls it (through the settings) on every process, as River
// asks, since only the leader enqueues periodic jobs.
func (s *Scheduler) Reschedule(name, cronExpr string) error {
	sched, err := ParseCron(cronExpr, s.opts.Location)
	if err != nil {
		return fmt.Errorf("reschedule job %s: %w", name, err)
	}
	if _, ok := s.job(name); !ok {
		return fmt.Errorf("reschedule job %q: %w", name, ErrUnknownJob)
	}
	s.client.PeriodicJobs().RemoveByID(name)
	if err := s.schedule(name, sched); err != nil {
		return fmt.Errorf("reschedule job %s: %w", name, err)
	}
	return nil
}

func (s *Scheduler) schedule(name string, sched cron.Schedule) error {
	_, err := s.client.PeriodicJobs().AddSafely(river.NewPeriodicJob(sched,
		func() (river.JobArgs, *river.InsertOpts) { return namedJobArgs{Name: name}, nil },
		&river.PeriodicJobOpts{ID: name}))
	return err
}

// ParseCron parses a cron expression (see AddPeriodic) whose times are in loc
// unless it starts with CRON_TZ= or TZ=.
func ParseCron(expr string, loc *time.Location) (cron.Schedule, error) {
	expr = strings.TrimSpace(expr)
	sched, err := cronParser.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("cron %q: %w", expr, err)
	}
	if spec, ok := sched.(*cron.SpecSchedule); ok && loc != nil &&
		!strings.HasPrefix(expr, "CRON_TZ=") && !strings.HasPrefix(expr, "TZ=") {
		spec.Location = loc
	}
	return sched, nil
}

// Jobs lists the names of the added jobs, sorted.
func (s *Scheduler) Jobs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.jobs))
	for n := range s.jobs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// RunNow runs the named job once, now, in the calling goroutine, and returns
// its error. It needs no Start.
func (s *Scheduler) RunNow(ctx context.Context, name string) error {
	fn, ok := s.job(name)
	if !ok {
		return fmt.Errorf("run job %q: %w (known: %s)", name, ErrUnknownJob, strings.Join(s.Jobs(), ", "))
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.JobTimeout)
	defer cancel()
	if err := s.runJob(ctx, name, fn, s.now()); err != nil {
		return fmt.Errorf("run job %s: %w", name, err)
	}
	return nil
}

// runJob runs fn for the slot at; its model calls are recorded as a job's,
// and JobDone hears how it ended.
// A panicking job fails this run (logged with its stack) instead of taking
// the process down: RunNow runs in its caller's goroutine.
func (s *Scheduler) runJob(ctx context.Context, name string, fn JobFunc, at time.Time) (err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("job panicked", "job", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = fmt.Errorf("job %s panicked: %v", name, p)
			if s.opts.JobDone != nil {
				s.opts.JobDone(name, err)
			}
		}
	}()
	err = fn(llm.WithKind(ctx, llm.KindJob), at)
	if s.opts.JobDone != nil {
		s.opts.JobDone(name, err)
	}
	return err
}

func (s *Scheduler) job(name string) (JobFunc, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, ok := s.jobs[name]
	return fn, ok
}

// namedJobArgs is one run of a named job. Unique by name and the second of
// its scheduled_at — the cron slot — so a slot inserted by two processes (a
// leader change, RunOnStart) runs once.
type namedJobArgs struct {
	Name string `json:"name"`
}

func (namedJobArgs) Kind() string { return "named_job" }

func (namedJobArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue:       QueueJobs,
		MaxAttempts: 3,
		UniqueOpts:  river.UniqueOpts{ByArgs: true, ByPeriod: time.Second},
	}
}

type namedJobWorker struct {
	river.WorkerDefaults[namedJobArgs]
	s *Scheduler
}

func (w *namedJobWorker) Timeout(*river.Job[namedJobArgs]) time.Duration { return w.s.opts.JobTimeout }

func (w *namedJobWorker) Work(ctx context.Context, job *river.Job[namedJobArgs]) error {
	fn, ok := w.s.job(job.Args.Name)
	if !ok {
		// Added in another process only; nothing here can run it.
		return river.JobCancel(fmt.Errorf("job %q: %w", job.Args.Name, ErrUnknownJob))
	}
	if err := w.s.runJob(ctx, job.Args.Name, fn, job.ScheduledAt.In(w.s.opts.Location)); err != nil {
		w.s.log.Error("job failed", "job", job.Args.Name, "attempt", job.Attempt, "err", err)
		return err
	}
	return nil
}
