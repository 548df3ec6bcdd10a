package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// AdminSession is a row of admin_sessions: one login to the admin page.
type AdminSession struct {
	TokenHash  []byte    `db:"token_hash"` // SHA-256 of the cookie's token
	CSRFToken  string    `db:"csrf_token"` // the X-CSRF-Token every write must carry
	Address    string    `db:"address"`    // where the login came from
	UserAgent  string    `db:"user_agent"`
	CreatedAt  time.Time `db:"created_at"`
	LastSeenAt time.Time `db:"last_seen_at"`
}

const adminSessionColumns = "token_hash, csrf_token, address, user_agent, created_at, last_seen_at"

// InsertAdminSession stores a new login.
func InsertAdminSession(ctx context.Context, q Querier, s AdminSession) error {
	now := utcOrNow(s.CreatedAt)
	if _, err := q.Exec(ctx, `
INSERT INTO admin_sessions (token_hash, csrf_token, address, user_agent, created_at, last_seen_at)
VALUES ($1, $2, $3, $4, $5, $5)`, s.TokenHash, s.CSRFToken, s.Address, s.UserAgent, now); err != nil {
		return fmt.Errorf("insert admin session: %w", err)
	}
	return nil
}

// LiveAdminSession returns the session whose token hashes to tokenHash if it
// was seen after idleSince, or ErrNotFound.
func LiveAdminSession(ctx context.Context, q Querier, tokenHash []byte, idleSince time.Time) (AdminSession, error) {
	rows, err := q.Query(ctx, "SELECT "+adminSessionColumns+
		" FROM admin_sessions WHERE token_hash = $1 AND last_seen_at > $2", tokenHash, idleSince.UTC())
	if err != nil {
		return AdminSession{}, fmt.Errorf("get admin session: %w", err)
	}
	s, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[AdminSession])
	if err != nil {
		return AdminSession{}, fmt.Errorf("get admin session: %w", interpretError(err))
	}
	return s, nil
}

// TouchAdminSession moves a session's last_seen_at forward to at.
func TouchAdminSession(ctx context.Context, q Querier, tokenHash []byte, at time.Time) error {
	if _, err := q.Exec(ctx, "UPDATE admin_sessions SET last_seen_at = GREATEST(last_seen_at, $2) WHERE token_hash = $1",
		tokenHash, utcOrNow(at)); err != nil {
		return fmt.Errorf("touch admin session: %w", err)
	}
	return nil
}

// DeleteAdminSession ends a login; ending one that is gone is not an error.
func DeleteAdminSession(ctx context.Context, q Querier, tokenHash []byte) error {
	if _, err := q.Exec(ctx, "DELETE FROM admin_sessions WHERE token_hash = $1", tokenHash); err != nil {
		return fmt.Errorf("delete admin session: %w", err)
	}
	return nil
}

// DeleteAdminSessions ends every login, as a password change does, and
// returns how many there were.
func DeleteAdminSessions(ctx context.Context, q Querier) (int64, error) {
	tag, err := q.Exec(ctx, "DELETE FROM admin_sessions")
	if err != nil {
		return 0, fmt.Errorf("delete admin sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

// PruneAdminSessions deletes the sessions not seen since idleSince.
func PruneAdminSessions(ctx context.Context, q Querier, idleSince time.Time) (int64, error) {
	tag, err := q.Exec(ctx, "DELETE FROM admin_sessions WHERE last_seen_at <= $1", idleSince.UTC())
	if err != nil {
		return 0, fmt.Errorf("prune admin sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

// ReplaceAdminPassword stores hash as the admin password (the app_settings
// row key) and ends every login, in one transaction, so no session made
// with the old password outlives the change. It returns how many logins
// were ended.
func ReplaceAdminPassword(ctx context.Context, b TxBeginner, key string, hash []byte) (int64, error) {
	var ended int64
	err := pgx.BeginFunc(ctx, b, func(tx pgx.Tx) error {
		if err := SetSetting(ctx, tx, key, hash); err != nil {
			return err
		}
		var err error
		ended, err = DeleteAdminSessions(ctx, tx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("replace admin password: %w", err)
	}
	return ended, nil
}
