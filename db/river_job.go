package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// JobsDueBefore returns when the jobs of queue that River has yet to run
// (available, scheduled or retryable) are due, up to before, earliest
// first, at most limit. River owns the table; this only reads it, for the
// scheduler's wake-ups.
func JobsDueBefore(ctx context.Context, q Querier, queue string, before time.Time, limit int) ([]time.Time, error) {
	rows, err := q.Query(ctx, `
SELECT scheduled_at FROM river_job
WHERE state IN ('available', 'scheduled', 'retryable') AND queue = $1 AND scheduled_at <= $2
ORDER BY scheduled_at
LIMIT $3`, queue, before, limit)
	if err != nil {
		return nil, fmt.Errorf("jobs of %s due before %s: %w", queue, before.Format(time.RFC3339), err)
	}
	due, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return nil, fmt.Errorf("jobs of %s due before %s: %w", queue, before.Format(time.RFC3339), err)
	}
	return due, nil
}
