package db

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLockKey is the advisory lock that serialises schema changes across
// processes ("yorozu.migrate" as a fixed 64-bit key).
const migrationLockKey int64 = 0x796f726f7a756d67

// Migration is one numbered SQL file under db/migrations.
type Migration struct {
	Version int    // from the file name's number, 0001_init.sql -> 1
	Name    string // from the rest of the file name, 0001_init.sql -> "init"
	SQL     string
}

// Migrations returns the embedded migrations sorted by version.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []Migration
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		base := strings.TrimSuffix(e.Name(), ".sql")
		num, name, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must look like 0001_name.sql", e.Name())
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migration %d: both %s and %s", v, prev, e.Name())
		}
		seen[v] = e.Name()
		b, err := migrationFS.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration %d: %w", v, err)
		}
		ms = append(ms, Migration{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms, nil
}

// WithMigrationLock runs fn while holding the migration advisory lock on one
// dedicated connection, so schema changes from several processes (ours and
// River's) never interleave. It waits for the lock until ctx is done.
func WithMigrationLock(ctx context.Context, pool *pgxpool.Pool, fn func(ctx context.Context) error) error {
	return withLock(ctx, pool, func(ctx context.Context, _ *pgxpool.Conn) error { return fn(ctx) })
}

func withLock(ctx context.Context, pool *pgxpool.Pool, fn func(ctx context.Context, conn *pgxpool.Conn) error) (err error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migration lock: acquire connection: %w", err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLockKey); err != nil {
		conn.Release()
		return fmt.Errorf("migration lock: %w", err)
	}
	defer func() {
		// Unlock even when ctx is cancelled; if that fails, closing the
		// connection is what releases a session-level lock.
		uctx := context.WithoutCancel(ctx)
		if _, uerr := conn.Exec(uctx, "SELECT pg_advisory_unlock($1)", migrationLockKey); uerr != nil {
			_ = conn.Conn().Close(uctx)
		}
		conn.Release()
	}()
	return fn(ctx, conn)
}

// Migrate applies the pending embedded migrations in version order, each in
// its own transaction, and records them in schema_migrations.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := Migrations()
	if err != nil {
		return err
	}
	return withLock(ctx, pool, func(ctx context.Context, conn *pgxpool.Conn) error {
		if _, err := conn.Exec(ctx, `
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		applied, err := appliedVersions(ctx, conn)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if applied[m.Version] {
				continue
			}
			if err := apply(ctx, conn, m); err != nil {
				return err
			}
		}
		return nil
	})
}

func apply(ctx context.Context, conn *pgxpool.Conn, m Migration) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name)
		return err
	})
	if err != nil {
		return fmt.Errorf("apply migration %d (%s): %w", m.Version, m.Name, err)
	}
	return nil
}

func appliedVersions(ctx context.Context, q Querier) (map[int]bool, error) {
	rows, err := q.Query(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	vs, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	applied := make(map[int]bool, len(vs))
	for _, v := range vs {
		applied[int(v)] = true
	}
	return applied, nil
}

// MigrationStatus counts the embedded migrations already applied and still
// pending. A database never migrated has every migration pending.
func MigrationStatus(ctx context.Context, pool *pgxpool.Pool) (applied, pending int, err error) {
	ms, err := Migrations()
	if err != nil {
		return 0, 0, err
	}
	done, err := appliedVersions(ctx, pool)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
		done, err = map[int]bool{}, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("migration status: %w", err)
	}
	for _, m := range ms {
		if done[m.Version] {
			applied++
		} else {
			pending++
		}
	}
	return applied, pending, nil
}
