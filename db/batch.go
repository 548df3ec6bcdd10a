package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Batch is reads queued to go to the database in one round trip, on one
// connection: a turn's context is six small reads, and on a busy machine one
// pipelined trip costs less than six connections at once. The Queue…
// functions add to it; Send runs them and fills their results.
type Batch struct {
	b     pgx.Batch
	names []string // what each read is, for errors
}

// Send runs the queued reads in order and fills their results; the first
// failure is returned, naming its read.
func (b *Batch) Send(ctx context.Context, pool *pgxpool.Pool) error {
	if b.b.Len() == 0 {
		return nil
	}
	br := pool.SendBatch(ctx, &b.b)
	if err := br.Close(); err != nil {
		return fmt.Errorf("batch of %v: %w", b.names, err)
	}
	return nil
}

// queueRows queues a read whose rows fill dst by column name.
func queueRows[T any](b *Batch, name string, dst *[]T, sql string, args ...any) {
	b.names = append(b.names, name)
	b.b.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		v, err := pgx.CollectRows(rows, pgx.RowToStructByName[T])
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*dst = v
		return nil
	})
}
