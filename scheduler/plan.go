package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/yorozu-bot/yorozu/db"
)

// A repeating reminder's occurrence gets its River job only once it is due
// within planAhead; one further off waits, jobless, for the planner, which
// runs every minute, half past (and at start). Delivering an occurrence then writes
// one row instead of also inserting tomorrow's job — a job insert cost as
// much as the rest of a delivery when 1,000 came due together — and River's
// table holds what is due soon, however many schedules there are.
const (
	planAhead = 10 * time.Minute
	// planReach is how far ahead the planner plans: beyond planAhead by
	// more than its period, so no occurrence falls between two runs.
	planReach = planAhead + 2*time.Minute
	planBatch = 1000

	planJob = "reminder_plan"
)

// halfPast is the planner's schedule: 30 s past every minute, away from the
// whole minutes most reminders are due at.
type halfPast struct{}

func (halfPast) Next(t time.Time) time.Time {
	next := t.Truncate(time.Minute).Add(30 * time.Second)
	if !next.After(t) {
		next = next.Add(time.Minute)
	}
	return next
}

// planArgs is one run of the planner.
type planArgs struct{}

func (planArgs) Kind() string { return planJob }

func (planArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueJobs, MaxAttempts: 1}
}

type planWorker struct {
	river.WorkerDefaults[planArgs]
	s *Scheduler
}

func (w *planWorker) Work(ctx context.Context, _ *river.Job[planArgs]) error {
	_, err := w.s.PlanUpcoming(ctx)
	return err
}

// addPlanner has River's leader run the planner every minute.
func (s *Scheduler) addPlanner() error {
	_, err := s.client.PeriodicJobs().AddSafely(river.NewPeriodicJob(halfPast{},
		func() (river.JobArgs, *river.InsertOpts) { return planArgs{}, nil },
		&river.PeriodicJobOpts{ID: planJob}))
	return err
}

// PlanUpcoming inserts the delivery jobs of the live repeating reminders due
// within planReach that have none, and returns how many it planned. Two
// planners at once plan each occurrence once: rows are locked and jobs
// unique by occurrence.
func (s *Scheduler) PlanUpcoming(ctx context.Context) (int, error) {
	horizon := s.now().Add(planReach)
	total := 0
	for {
		n, err := s.planSome(ctx, horizon)
		total += n
		if err != nil {
			return total, fmt.Errorf("plan reminders: %w", err)
		}
		if n < planBatch {
			return total, nil
		}
	}
}

// planSome plans up to planBatch reminders due before horizon in one
// transaction.
func (s *Scheduler) planSome(ctx context.Context, horizon time.Time) (int, error) {
	var n int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rems, err := db.LockUnplanned(ctx, tx, horizon, planBatch)
		if err != nil || len(rems) == 0 {
			return err
		}
		params := make([]river.InsertManyParams, len(rems))
		for i, r := range rems {
			params[i] = deliveryJob(r)
		}
		res, err := s.client.InsertManyTx(ctx, tx, params)
		if err != nil {
			return fmt.Errorf("insert delivery jobs: %w", err)
		}
		// Each job names its reminder: River does not promise the order.
		ids, jobs := make([]int64, len(res)), make([]int64, len(res))
		for i, r := range res {
			var args reminderArgs
			if err := json.Unmarshal(r.Job.EncodedArgs, &args); err != nil {
				return fmt.Errorf("read delivery job %d: %w", r.Job.ID, err)
			}
			ids[i], jobs[i] = args.ReminderID, r.Job.ID
		}
		n = len(rems)
		return db.SetReminderJobs(ctx, tx, ids, jobs)
	})
	return n, err
}
