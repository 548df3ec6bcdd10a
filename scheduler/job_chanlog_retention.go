package scheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// ChannelLogRetentionJob deletes logged channel messages older than
// CHANNEL_LOG_RETENTION once a day, at a quiet hour.
const (
	ChannelLogRetentionJob  = "channel_log_retention"
	channelLogRetentionCron = "30 4 * * *"
)

// chanlogBatch is how many logged messages one DELETE removes: the oldest,
// found through the primary key (a snowflake carries its time), so a batch
// locks only its own rows: 52 ms at a million logged messages (176 ms on a
// busy machine; db's BenchmarkChannelLogAtMillion/retention). Between
// batches the job pauses as long as the batch took (inBatches).
const chanlogBatch = 5000

// addChannelLogRetention registers ChannelLogRetentionJob; retention ≤ 0
// registers nothing.
func (s *Scheduler) addChannelLogRetention(retention time.Duration) error {
	if retention <= 0 {
		return nil
	}
	return s.AddPeriodic(ChannelLogRetentionJob, channelLogRetentionCron, func(ctx context.Context, _ time.Time) error {
		n, err := s.pruneChannelLog(ctx, s.now().Add(-retention))
		if err != nil {
			return err
		}
		s.log.Info("channel log past its retention deleted", "deleted", n, "channel_log_retention", retention.String())
		return nil
	})
}

// pruneChannelLog deletes the logged messages made before cutoff, a batch
// at a time, and returns how many.
func (s *Scheduler) pruneChannelLog(ctx context.Context, cutoff time.Time) (int64, error) {
	n, err := inBatches(ctx, chanlogBatch, retentionPause, func(ctx context.Context, limit int) (int64, error) {
		return db.DeleteChannelMessagesBefore(ctx, s.pool, cutoff, limit)
	})
	if err != nil {
		return n, fmt.Errorf("channel log retention: %w", err)
	}
	return n, nil
}
