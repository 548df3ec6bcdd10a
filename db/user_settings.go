package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// UserTimeZone returns the IANA time zone name userID chose, or "" when
// they chose none (the server's TIMEZONE applies). The name is returned as
// stored; checking it is the caller's business.
func UserTimeZone(ctx context.Context, q Querier, userID string) (string, error) {
	var name string
	err := q.QueryRow(ctx, "SELECT time_zone FROM user_settings WHERE user_id = $1", userID).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("time zone of user %s: %w", userID, err)
	}
	return name, nil
}

// SetUserTimeZone stores name as userID's time zone; "" clears it. The row
// stays, so the user's other settings are kept.
func SetUserTimeZone(ctx context.Context, q Querier, userID, name string) error {
	if userID == "" {
		return errors.New("set time zone: no user")
	}
	if _, err := q.Exec(ctx, `
INSERT INTO user_settings (user_id, time_zone, updated_at) VALUES ($1, $2, now())
ON CONFLICT (user_id) DO UPDATE SET time_zone = EXCLUDED.time_zone, updated_at = EXCLUDED.updated_at`,
		userID, name); err != nil {
		return fmt.Errorf("set time zone of user %s: %w", userID, err)
	}
	return nil
}
