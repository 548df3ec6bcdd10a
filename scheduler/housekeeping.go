package scheduler

import (
	"context"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// The housekeeping jobs: the knowledge base folder is embedded at start and
// then every few minutes, never on the path of a message; model call logs
// past their retention are deleted once a day, at a quiet hour; deleted
// conversations are purged every minute (PurgeJob).
const (
	KnowledgeBaseSyncJob = "kb_sync"
	knowledgeBaseCron    = "*/5 * * * *"

	apiLogPruneJob  = "api_log_prune"
	apiLogPruneCron = "40 4 * * *"
)

// HousekeepingOptions are what the housekeeping jobs do their work with.
type HousekeepingOptions struct {
	// SyncKnowledgeBase embeds what changed in the knowledge base folder
	// (memory.Memory.SyncKnowledgeBase).
	SyncKnowledgeBase func(ctx context.Context) error
	// APILogRetention is how long model call logs are kept
	// (API_LOG_RETENTION).
	APILogRetention time.Duration
	// MessageRetention is how long archived messages are kept
	// (MESSAGE_RETENTION); 0, the default, keeps them for ever.
	MessageRetention time.Duration
	// ChannelLogRetention is how long the channel log keeps a message
	// (CHANNEL_LOG_RETENTION); 0 registers no ChannelLogRetentionJob.
	ChannelLogRetention time.Duration
}

// AddHousekeeping registers the housekeeping jobs (KnowledgeBaseSyncJob,
// api_log_prune, PurgeJob, OfferPruneJob, MessageRetentionJob when on);
// RunNow runs one at once.
func (s *Scheduler) AddHousekeeping(o HousekeepingOptions) error {
	if err := s.addMessageRetention(o.MessageRetention); err != nil {
		return err
	}
	if err := s.addChannelLogRetention(o.ChannelLogRetention); err != nil {
		return err
	}
	if err := s.addPurge(); err != nil {
		return err
	}
	if err := s.addOfferPrune(); err != nil {
		return err
	}
	if err := s.AddPeriodic(KnowledgeBaseSyncJob, knowledgeBaseCron, func(ctx context.Context, _ time.Time) error {
		return o.SyncKnowledgeBase(ctx)
	}); err != nil {
		return err
	}
	return s.AddPeriodic(apiLogPruneJob, apiLogPruneCron, func(ctx context.Context, _ time.Time) error {
		n, err := db.PruneAPILogs(ctx, s.pool, time.Now().Add(-o.APILogRetention))
		if err != nil {
			return err
		}
		s.log.Info("model call logs pruned", "deleted", n, "api_log_retention", o.APILogRetention.String())
		return nil
	})
}
