package scheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// PurgeJob removes, every minute, the rows of what people deleted.
// Deleting a conversation (db.DeleteSession) or forgetting its summaries
// (db.ForgetMemoriesByKey) only marks them, so either is as quick at ten
// thousand messages as at ten; this job then deletes a deleted
// conversation's messages a batch at a time and last its session row, and
// each forgotten summary with the summaries folded into it. A run cut
// short (a restart, a timeout) leaves them marked, and the next run goes
// on.
const (
	PurgeJob  = "purge"
	purgeCron = "* * * * *"
)

// Batches of the purge, as the retention job's: each DELETE removes at
// most purgeBatch messages of one conversation (with their tags, search
// terms, images and activity), locking only rows of the deleted
// conversation: 36 ms warm and 78–89 ms cold at a million messages,
// 0.4 s at ten million (mostly the per-row cascade to message_tags). After
// each batch the purge pauses as long as the batch took (at least
// purgePause), so it never has the database more than half the time.
const (
	purgeBatch = 1000
	purgeRows  = 100 // deleted sessions or forgotten summaries looked up at once
	purgePause = 10 * time.Millisecond
)

// purged is what a purge removed.
type purged struct{ sessions, messages, summaries int64 }

// addPurge registers PurgeJob.
func (s *Scheduler) addPurge() error {
	return s.AddPeriodic(PurgeJob, purgeCron, func(ctx context.Context, _ time.Time) error {
		p, err := s.purge(ctx, purgeBatch, purgePause)
		if p != (purged{}) {
			s.log.Info("deleted conversations and forgotten summaries purged",
				"sessions", p.sessions, "messages", p.messages, "summaries", p.summaries)
		}
		return err
	})
}

// purge removes every forgotten summary, then every deleted session with
// its messages, batch messages at a time (pausing between statements as
// long as the last one took, at least minPause).
func (s *Scheduler) purge(ctx context.Context, batch int, minPause time.Duration) (purged, error) {
	var p purged
	if err := s.purgeSummaries(ctx, &p); err != nil {
		return p, fmt.Errorf("purge: %w", err)
	}
	if err := s.purgeSessions(ctx, &p, batch, minPause); err != nil {
		return p, fmt.Errorf("purge: %w", err)
	}
	return p, nil
}

func (s *Scheduler) purgeSummaries(ctx context.Context, p *purged) error {
	for {
		ids, err := db.ForgottenMemoryIDs(ctx, s.pool, purgeRows)
		if err != nil || len(ids) == 0 {
			return err
		}
		for _, id := range ids {
			n, err := db.PurgeForgottenMemory(ctx, s.pool, id)
			p.summaries += n
			if err != nil {
				return err
			}
		}
	}
}

func (s *Scheduler) purgeSessions(ctx context.Context, p *purged, batch int, minPause time.Duration) error {
	for {
		ids, err := db.DeletedSessionIDs(ctx, s.pool, purgeRows)
		if err != nil || len(ids) == 0 {
			return err
		}
		for _, id := range ids {
			n, err := inBatches(ctx, batch, minPause, func(ctx context.Context, limit int) (int64, error) {
				return db.PurgeSessionMessages(ctx, s.pool, id, limit)
			})
			p.messages += n
			if err != nil {
				return err
			}
			if err := db.PurgeSession(ctx, s.pool, id); err != nil {
				return err
			}
			p.sessions++
		}
	}
}

// inBatches calls del, which deletes up to limit rows and returns how
// many, with limit batch until it deletes fewer, and returns how many it
// deleted in all. After each batch it pauses as long as the batch took (at
// least minPause), so a job deleting in batches leaves the database to the
// turns at least half the time.
func inBatches(ctx context.Context, batch int, minPause time.Duration, del func(ctx context.Context, limit int) (int64, error)) (int64, error) {
	var total int64
	for {
		start := time.Now()
		n, err := del(ctx, batch)
		total += n
		if err != nil || n < int64(batch) {
			return total, err
		}
		select {
		case <-ctx.Done():
			return total, ctx.Err()
		case <-time.After(max(minPause, time.Since(start))):
		}
	}
}
