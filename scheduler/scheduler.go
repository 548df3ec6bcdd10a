package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/yorozu-bot/yorozu/db"
)

// Queues the scheduler works.
const (
	QueueReminders = "reminders"
	QueueJobs      = "jobs"
)

// riverSchedulerLookahead is how far ahead River's scheduler (an internal
// constant, JobSchedulerIntervalDefault) makes scheduled jobs available.
const riverSchedulerLookahead = 5 * time.Second

// Discord is what reminder delivery needs from Discord; *discordgo.Session
// satisfies it. Delivery goes through the raw request because discordgo's
// MessageSend (v0.29) has no nonce or enforce_nonce fields.
type Discord interface {
	RequestWithBucketID(method, urlStr string, data any, bucketID string, options ...discordgo.RequestOption) ([]byte, error)
}

var _ Discord = (*discordgo.Session)(nil)

// Digester writes digests: a summary of what members said in a channel
// from since to until, with jump links, in one Discord message. quiet,
// when not "", says why nothing is posted (fewer than minMessages
// messages); an error posts nothing, the schedule goes on. DigestNote says,
// in a sentence for the user, where a digest of the channel will read
// from.
type Digester interface {
	Digest(ctx context.Context, guildID, channelID string, since, until time.Time, minMessages int) (text, quiet string, err error)
	DigestNote(ctx context.Context, guildID, channelID string) string
}

// Options configure a Scheduler. Zero values get the documented defaults.
type Options struct {
	// Discord posts reminders. Nil leaves the reminders queue unworked: the
	// reminders are kept and go out once a process with Discord runs.
	Discord Discord
	// Location is TIMEZONE: cron schedules run in it and users read times
	// in it. Default time.Local.
	Location *time.Location
	Now      func() time.Time // default time.Now
	Logger   *slog.Logger     // default slog.Default()
	// Database, when set, says whether the database is away; River's
	// warnings and errors are logged at debug level meanwhile.
	Database *db.Watch

	// ReminderWorkers is how many reminders are delivered at once; default
	// 20, capped at the pool's MaxConns - 4 (each holds a connection).
	ReminderWorkers int
	JobWorkers      int // named jobs run at once; default 2

	// PollInterval is how often each queue looks for jobs that came due
	// when nothing woke it. A named job's queue is woken when one is
	// inserted or River's scheduler makes one available, a reminder's at
	// each due time, a retry's or a snooze's included (see wake.go), so the
	// poll is a fallback: for a wake-up lost while River's listening
	// connection was down, or a job made available without a notification
	// (River UI's retry). Each poll is a transaction, so it sets much of
	// what an idle process costs: two queues at 50 ms made 40 a second.
	// Default 10 s: a lost wake-up makes a reminder at most that late
	// (well within LateAfter), for 0.2 transactions a second.
	PollInterval time.Duration
	// SendTimeout bounds one Discord call. Default 15 s.
	SendTimeout time.Duration
	// JobTimeout bounds one run of a named job. Default 10 min.
	JobTimeout time.Duration
	// RescueAfter is how long a reminder delivery may stay running before
	// it is taken for the work of a crashed process and tried again (River's
	// RescueStuckJobsAfter; its rescuer looks every 30 s). Short, so the
	// retry comes while Discord may still remember the nonce; the retry
	// looks for the message first anyway. Default 90 s; at least one
	// delivery's own deadline (2 × SendTimeout + 5 s). Named jobs are
	// rescued only after their JobTimeout.
	RescueAfter time.Duration

	MaxAhead   time.Duration // REMINDER_MAX_AHEAD_DAYS; default 365 days
	MaxPending int           // REMINDER_MAX_PENDING, per user; default 50
	// MaxPostsPerSpace is SCHEDULE_MAX_PER_SPACE, the scheduled posts one
	// server may have; default 20.
	MaxPostsPerSpace int

	// Post writes the message of one occurrence of a scheduled post: the
	// chat pipeline's answer to its Content, in its channel. Nil: scheduled
	// posts are kept and not posted. An error posts nothing; the schedule
	// goes on.
	Post func(ctx context.Context, r db.Reminder) (string, error)
	// Digests write the message of each occurrence of a digest, and say
	// where a digest will read from; *chat.Summarizer does. Nil: digests
	// are kept and not posted.
	Digests Digester
	// DigestMinMessages is how many messages members must have written
	// since a digest's previous occurrence for it to post
	// (DIGEST_MIN_MESSAGES); default 5.
	DigestMinMessages int
	// ButtonKey signs the custom ids of the buttons on delivered reminders
	// (see ButtonID); the same on every process, and kept across restarts.
	// Empty: reminders go out without buttons.
	ButtonKey []byte
	// LateAfter is how late a reminder must be to say so. Default 1 min.
	LateAfter time.Duration

	// ClientID names this River client; must differ between processes.
	// Default: River generates one.
	ClientID string

	// JobDone, when set, learns how each run of a named job ended (err nil
	// on success), periodic or RunNow; for metrics, so it must be quick.
	JobDone func(name string, err error)
	// ReminderDone, when set, learns each delivery attempt's outcome
	// ("delivered", "retry", "failed") and, when delivered, how late it was.
	ReminderDone func(outcome string, late time.Duration)
}

func (o *Options) defaults() {
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ReminderWorkers <= 0 {
		o.ReminderWorkers = 20
	}
	if o.JobWorkers <= 0 {
		o.JobWorkers = 2
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 10 * time.Second
	}
	if o.SendTimeout <= 0 {
		o.SendTimeout = 15 * time.Second
	}
	if o.DigestMinMessages <= 0 {
		o.DigestMinMessages = 5
	}
	if o.JobTimeout <= 0 {
		o.JobTimeout = 10 * time.Minute
	}
	if o.RescueAfter <= 0 {
		o.RescueAfter = 90 * time.Second
	}
	if o.MaxAhead <= 0 {
		o.MaxAhead = 365 * 24 * time.Hour
	}
	if o.MaxPending <= 0 {
		o.MaxPending = 50
	}
	if o.MaxPostsPerSpace <= 0 {
		o.MaxPostsPerSpace = 20
	}
	if o.LateAfter <= 0 {
		o.LateAfter = time.Minute
	}
}

// Scheduler runs River on the app's pool: reminder delivery and named jobs.
type Scheduler struct {
	opts   Options
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	log    *slog.Logger

	// wake wakes the reminders queue at its jobs' due times; nil when
	// the queue is not worked.
	wake     *waker
	stopWake context.CancelFunc

	mu       sync.Mutex
	jobs     map[string]JobFunc
	started  bool
	stopOnce sync.Once
	stopErr  error
}

// Migrate applies River's migrations under the same advisory lock as
// db.Migrate, so processes starting together never interleave schema
// changes. Call it after db.Migrate.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return db.WithMigrationLock(ctx, pool, func(ctx context.Context) error {
		m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: slog.New(&minLevel{Handler: slog.Default().Handler(), min: slog.LevelWarn})})
		if err != nil {
			return fmt.Errorf("river migrate: %w", err)
		}
		if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return fmt.Errorf("river migrate: %w", err)
		}
		return nil
	})
}

// MigrationsPending reports the job queue's migrations not yet applied to
// pool, as River's messages ("" when none), changing nothing.
func MigrationsPending(ctx context.Context, pool *pgxpool.Pool) (string, error) {
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return "", fmt.Errorf("river migration status: %w", err)
	}
	res, err := m.Validate(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("river migration status: %w", err)
	}
	if res.OK {
		return "", nil
	}
	return strings.Join(res.Messages, "; "), nil
}

// New builds a Scheduler on pool, whose River tables Migrate has created.
// Nothing runs until Start; Reminders().Create and RunNow work without it.
func New(pool *pgxpool.Pool, opts Options) (*Scheduler, error) {
	if pool == nil {
		return nil, errors.New("scheduler: pool is required")
	}
	opts.defaults()
	s := &Scheduler{
		opts: opts,
		pool: pool,
		log:  opts.Logger.With(slog.String("component", "scheduler")),
		jobs: map[string]JobFunc{},
	}

	// In a burst every worker may be claiming or recording at once, each
	// on a connection (none is held across Discord or the model), and
	// River needs a few of its own (LISTEN, leader, completer).
	if limit := int(pool.Config().MaxConns) - 4; opts.ReminderWorkers > limit {
		s.log.Warn("pool too small for the reminder workers; raise pool_max_conns in DATABASE_URL",
			"reminder_workers", opts.ReminderWorkers, "pool_max_conns", pool.Config().MaxConns)
		opts.ReminderWorkers = max(limit, 1)
		s.opts.ReminderWorkers = opts.ReminderWorkers
	}

	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &reminderWorker{s: s}); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &namedJobWorker{s: s}); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &planWorker{s: s}); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	// River wants the cooldown (least time between fetches) below the poll
	// interval. A short one keeps the workers fed through a burst of due
	// reminders: each finished job lets the next be fetched at once (2 ms
	// took 1,000 occurrences due together about 10% sooner than 20 ms;
	// 100 ms twice as long). Idle, the poll interval sets the pace.
	cooldown := max(min(opts.PollInterval/2, 2*time.Millisecond), time.Millisecond)
	queues := map[string]river.QueueConfig{
		QueueJobs: {MaxWorkers: opts.JobWorkers, FetchCooldown: cooldown, FetchPollInterval: opts.PollInterval},
	}
	if opts.Discord != nil {
		queues[QueueReminders] = river.QueueConfig{
			MaxWorkers:        opts.ReminderWorkers,
			FetchCooldown:     cooldown,
			FetchPollInterval: opts.PollInterval,
		}
	}
	if opts.Discord != nil {
		s.wake = newWaker(QueueReminders, s.log,
			riverWake(func() riverdriver.Executor { return s.client.Driver().GetExecutor() }, QueueReminders),
			func(ctx context.Context, before time.Time) ([]time.Time, error) {
				return db.JobsDueBefore(ctx, pool, QueueReminders, before, maxWakes)
			})
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID:                opts.ClientID,
		Logger:            slog.New(&riverLog{Handler: s.log.Handler(), db: opts.Database}),
		Queues:            queues,
		Workers:           workers,
		FetchCooldown:     cooldown,
		FetchPollInterval: opts.PollInterval,
		// Each worker sets its own timeout, which River's rescuer honours:
		// a named job is not taken for stuck before its JobTimeout.
		JobTimeout:           s.reminderTimeout(),
		RescueStuckJobsAfter: max(opts.RescueAfter, s.reminderTimeout()),
		Middleware:           []rivertype.Middleware{river.JobInsertMiddlewareFunc(s.availableSoon)},
	})
	if err != nil {
		return nil, fmt.Errorf("scheduler: new river client: %w", err)
	}
	s.client = client
	if err := s.addPlanner(); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	return s, nil
}

// availableSoon inserts reminder jobs due within River's scheduler look-ahead
// as available, as that scheduler would on its next pass; otherwise one due
// in 3 s could wait up to 5 s for it. Each reminder job's due time is kept
// to wake its queue at.
func (s *Scheduler) availableSoon(ctx context.Context, params []*rivertype.JobInsertParams, next func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	horizon := time.Now().Add(riverSchedulerLookahead)
	for _, p := range params {
		if p.Kind != (reminderArgs{}).Kind() {
			continue
		}
		if p.State == rivertype.JobStateScheduled && p.ScheduledAt != nil && p.ScheduledAt.Before(horizon) {
			p.State = rivertype.JobStateAvailable
		}
		if s.wake != nil && p.ScheduledAt != nil {
			s.wake.add(*p.ScheduledAt)
		}
	}
	return next(ctx)
}

// Start starts working jobs; it returns once the client runs. Jobs that came
// due while no process ran are picked up at once, and occurrences due soon
// that have no job yet are planned.
func (s *Scheduler) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("scheduler: already started")
	}
	if err := s.client.Start(ctx); err != nil {
		return fmt.Errorf("scheduler: start: %w", err)
	}
	s.started = true
	if s.wake != nil {
		wctx, cancel := context.WithCancel(ctx)
		// A retry or a snooze moves a job's time without an insert: River
		// tells of them as events.
		events, unsubscribe := s.client.Subscribe(river.EventKindJobFailed, river.EventKindJobSnoozed)
		done := make(chan struct{}, 2)
		s.stopWake = func() { cancel(); unsubscribe(); <-done; <-done }
		go func() {
			defer func() { done <- struct{}{} }()
			s.wake.run(wctx)
		}()
		go func() {
			defer func() { done <- struct{}{} }()
			s.wake.follow(wctx, events)
		}()
	}
	if _, err := s.PlanUpcoming(ctx); err != nil {
		// The planner's next run (within a minute) tries again.
		s.log.Error("planning due reminders at start", "err", err)
	}
	return nil
}

// Stop stops fetching jobs and waits for running ones to finish until ctx is
// done; then it cancels them, and River hands them back to be retried. It is
// idempotent and safe to call without Start.
func (s *Scheduler) Stop(ctx context.Context) error {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if !started {
		return nil
	}
	s.stopOnce.Do(func() {
		if s.stopWake != nil {
			s.stopWake()
		}
		err := s.client.Stop(ctx)
		if err != nil && ctx.Err() != nil {
			// Out of patience: cancel the jobs still running. Their
			// attempts end with a context error and are retried later.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			err = s.client.StopAndCancel(cctx)
		}
		if err != nil {
			s.stopErr = fmt.Errorf("scheduler: stop: %w", err)
		}
	})
	return s.stopErr
}

// reminderTimeout bounds one delivery attempt: a look for an earlier
// delivery, the post, and the record of the result.
func (s *Scheduler) reminderTimeout() time.Duration { return 2*s.opts.SendTimeout + 5*time.Second }

// Reminders is the reminder service over this scheduler.
func (s *Scheduler) Reminders() *Reminders { return &Reminders{s: s} }

func (s *Scheduler) now() time.Time { return s.opts.Now() }

// minLevel drops records below min: River's migrator's info logs.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h *minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h *minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return &minLevel{Handler: h.Handler.WithAttrs(as), min: h.min}
}

func (h *minLevel) WithGroup(name string) slog.Handler {
	return &minLevel{Handler: h.Handler.WithGroup(name), min: h.min}
}

// riverLog is River's logger: its warnings and errors, at debug level while
// the database is away (Options.Database says so once for every part; River
// would say it for every poll of every queue). Its info logs (client
// started, leadership changes) are noise next to ours and dropped.
type riverLog struct {
	slog.Handler
	db *db.Watch
}

func (h *riverLog) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h *riverLog) Handle(ctx context.Context, r slog.Record) error {
	if h.db != nil && h.db.Check(ctx) {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h *riverLog) WithAttrs(as []slog.Attr) slog.Handler {
	return &riverLog{Handler: h.Handler.WithAttrs(as), db: h.db}
}

func (h *riverLog) WithGroup(name string) slog.Handler {
	return &riverLog{Handler: h.Handler.WithGroup(name), db: h.db}
}
