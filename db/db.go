package db

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// Querier is what the table functions need. *pgxpool.Pool, *pgxpool.Conn,
// *pgx.Conn and pgx.Tx all satisfy it, so the same call can run on the pool or
// inside a caller's transaction.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

var (
	_ Querier = (*pgxpool.Pool)(nil)
	_ Querier = (*pgxpool.Conn)(nil)
	_ Querier = (*pgx.Conn)(nil)
	_ Querier = (pgx.Tx)(nil)
)

// pingTimeout bounds the first round-trip of Open when ctx has no earlier deadline.
const pingTimeout = 5 * time.Second

// idlePingAfter is how long a pooled connection must have been idle to be
// pinged before use.
const idlePingAfter = time.Minute

// DefaultMaxConns is the pool size when the URL does not set pool_max_conns.
const DefaultMaxConns = 32

// Open connects a pool to the database at url and pings it. Sessions run in
// UTC and timestamptz values are scanned as UTC. Pool sizes given in the URL
// (pool_max_conns, …) are honoured; otherwise the pool holds up to
// DefaultMaxConns connections (reminder workers each hold one while Discord
// answers) and pgxpool's other defaults apply.
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The parse error quotes the connection string, password redacted on
		// a best-effort basis only: keep just the reason.
		var pe *pgconn.ParseConfigError
		if errors.As(err, &pe) && errors.Unwrap(pe) != nil {
			return nil, fmt.Errorf("open database: invalid connection string: %w", errors.Unwrap(pe))
		}
		return nil, errors.New("open database: invalid connection string")
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	cc := cfg.ConnConfig
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = pingTimeout
	}
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	cc.RuntimeParams["timezone"] = "UTC"
	if cc.RuntimeParams["application_name"] == "" {
		cc.RuntimeParams["application_name"] = "yorozu"
	}
	// pgxpool pings a connection idle for over a second before handing it
	// out: for the parts that query every few seconds (River, the gateway
	// lock, the heartbeat) that doubled what an idle process costs the
	// database. A connection that died meanwhile fails its query instead,
	// which is retried where it matters, and Watch sees the database go.
	cfg.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool {
		return p.IdleDuration > idlePingAfter
	}
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		c.TypeMap().RegisterType(&pgtype.Type{
			Name:  "timestamptz",
			OID:   pgtype.TimestamptzOID,
			Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC},
		})
		return nil
	}

	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database %s:%d: %w", cc.Host, cc.Port, err)
	}
	return pool, nil
}

// interpretError turns driver errors into this package's sentinels.
func interpretError(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// utcOrNow returns t in UTC, or now when t is zero.
func utcOrNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t.UTC()
}

// TagOrigin tags the notices of context changes that tx's writes send
// (ContextChange.Origin) with origin: the writer takes care of its own
// cache.
func TagOrigin(ctx context.Context, tx pgx.Tx, origin string) error {
	if _, err := tx.Exec(ctx, `SELECT set_config('yorozu.origin', $1, true)`, origin); err != nil {
		return fmt.Errorf("tag the transaction's origin: %w", err)
	}
	return nil
}

// CommitWithoutFlush lets tx commit without waiting for its WAL to reach
// the disk (synchronous_commit off for this transaction only). For writes
// on a turn's path whose loss in a database crash — the last fraction of a
// second's, never a torn or conflicting row — costs less than the wait.
// origin, when not "", tags the transaction's notices of context changes
// (ContextChange.Origin): the writer has applied the change to its own
// cache already.
func CommitWithoutFlush(ctx context.Context, tx pgx.Tx, origin string) error {
	if _, err := tx.Exec(ctx, `SELECT set_config('synchronous_commit', 'off', true), set_config('yorozu.origin', $1, true)`, origin); err != nil {
		return fmt.Errorf("commit without flush: %w", err)
	}
	return nil
}
