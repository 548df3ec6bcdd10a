package scheduler

import (
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
)

// Client is the River client, for River's own UI (riverui) on the admin
// page. Jobs are added through the Scheduler, not through it.
func (s *Scheduler) Client() *river.Client[pgx.Tx] { return s.client }
