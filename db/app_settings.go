package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// EnsureSetting returns the value stored under key, storing value first when
// the key is new. Several processes starting at once all get the same value.
func EnsureSetting(ctx context.Context, q Querier, key string, value []byte) ([]byte, error) {
	var stored []byte
	err := q.QueryRow(ctx, `
WITH ins AS (
    INSERT INTO app_settings (key, value) VALUES ($1, $2)
    ON CONFLICT (key) DO NOTHING
    RETURNING value
)
SELECT value FROM ins
UNION ALL
SELECT value FROM app_settings WHERE key = $1
LIMIT 1`, key, value).Scan(&stored)
	if errors.Is(err, pgx.ErrNoRows) {
		// Another process inserted the key after this statement's snapshot
		// was taken; a new statement sees its value.
		return Setting(ctx, q, key)
	}
	if err != nil {
		return nil, fmt.Errorf("ensure setting %q: %w", key, interpretError(err))
	}
	return stored, nil
}

// Setting returns the value stored under key, or ErrNotFound.
func Setting(ctx context.Context, q Querier, key string) ([]byte, error) {
	var v []byte
	if err := q.QueryRow(ctx, `SELECT value FROM app_settings WHERE key = $1`, key).Scan(&v); err != nil {
		return nil, fmt.Errorf("setting %q: %w", key, interpretError(err))
	}
	return v, nil
}

// SetSetting stores value under key, replacing what was there.
func SetSetting(ctx context.Context, q Querier, key string, value []byte) error {
	if _, err := q.Exec(ctx, `
INSERT INTO app_settings (key, value, updated_at) VALUES ($1, $2, now())
ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`, key, value); err != nil {
		return fmt.Errorf("set setting %q: %w", key, err)
	}
	return nil
}

// DeleteSetting removes key; a key that is not there is not an error.
func DeleteSetting(ctx context.Context, q Querier, key string) error {
	if _, err := q.Exec(ctx, "DELETE FROM app_settings WHERE key = $1", key); err != nil {
		return fmt.Errorf("delete setting %q: %w", key, err)
	}
	return nil
}

// Settings returns the values stored under keys, in one round-trip; keys
// not stored are absent from the map.
func Settings(ctx context.Context, q Querier, keys []string) (map[string][]byte, error) {
	rows, err := q.Query(ctx, "SELECT key, value FROM app_settings WHERE key = ANY($1)", keys)
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	out := make(map[string][]byte, len(keys))
	var k string
	var v []byte
	if _, err := pgx.ForEachRow(rows, []any{&k, &v}, func() error {
		out[k] = v
		return nil
	}); err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	return out, nil
}
