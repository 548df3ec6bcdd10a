package scheduler

import (
	"context"
	"time"

	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db"
)

// OfferPruneJob deletes, once a day at a quiet hour, the offers (a fact to
// keep, a poll, a server event proposed under an answer) made longer ago
// than commands.OfferLifetime, answered or not: their buttons may no longer
// be pressed, and a press on one finds it gone and is told it expired.
const (
	OfferPruneJob  = "offer_prune"
	offerPruneCron = "50 4 * * *"
)

// addOfferPrune registers OfferPruneJob.
func (s *Scheduler) addOfferPrune() error {
	return s.AddPeriodic(OfferPruneJob, offerPruneCron, func(ctx context.Context, _ time.Time) error {
		n, err := db.DeleteOffersBefore(ctx, s.pool, commands.OfferLifetime)
		if err != nil {
			return err
		}
		s.log.Info("expired offers deleted", "deleted", n, "offer_lifetime", commands.OfferLifetime.String())
		return nil
	})
}
