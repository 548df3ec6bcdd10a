package scheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// MessageRetentionJob deletes archived messages older than
// MESSAGE_RETENTION once a day, at a quiet hour. Unarchived messages (the
// context of live conversations), summaries, notes and knowledge stay.
const (
	MessageRetentionJob  = "message_retention"
	messageRetentionCron = "20 4 * * *"
)

// Batches of the retention job: each DELETE removes at most
// retentionBatch archived messages of one session (with their tags and
// search terms), locking only those rows, for well under a second (as
// the purge job's batches: 36–89 ms at a million messages, 0.4 s at ten
// million). After each batch the job pauses as long as the batch took (at
// least retentionPause), leaving the database to the turns at least half
// the time.
const (
	retentionBatch    = 1000
	retentionSessions = 500
	retentionPause    = 10 * time.Millisecond
)

// addMessageRetention registers MessageRetentionJob; retention ≤ 0 (the
// default, "off") registers nothing.
func (s *Scheduler) addMessageRetention(retention time.Duration) error {
	if retention <= 0 {
		return nil
	}
	return s.AddPeriodic(MessageRetentionJob, messageRetentionCron, func(ctx context.Context, _ time.Time) error {
		n, err := s.pruneMessages(ctx, s.now().Add(-retention))
		if err != nil {
			return err
		}
		s.log.Info("archived messages past their retention deleted", "deleted", n, "message_retention", retention.String())
		return nil
	})
}

// pruneMessages deletes the archived messages written before cutoff, a
// session and a batch at a time, and returns how many it deleted.
func (s *Scheduler) pruneMessages(ctx context.Context, cutoff time.Time) (int64, error) {
	var total int64
	var after int64
	for {
		ids, err := db.SessionIDsAfter(ctx, s.pool, after, retentionSessions)
		if err != nil {
			return total, err
		}
		if len(ids) == 0 {
			return total, nil
		}
		for _, id := range ids {
			n, err := inBatches(ctx, retentionBatch, retentionPause, func(ctx context.Context, limit int) (int64, error) {
				return db.DeleteArchivedMessages(ctx, s.pool, id, cutoff, limit)
			})
			total += n
			if err != nil {
				return total, fmt.Errorf("message retention: %w", err)
			}
		}
		after = ids[len(ids)-1]
	}
}
