package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ClaimMention makes owner the process that answers the Discord message
// messageID. It is false when another owner claimed it first; claiming a
// message again as its owner is true. The claim is on every turn's path
// before the model call, so its commit does not wait for the WAL to reach
// the disk (synchronous_commit off for this statement's transaction): a
// database crash may forget the last claims, never a claim's conflict.
func ClaimMention(ctx context.Context, q Querier, messageID, owner string) (bool, error) {
	var claimed bool
	err := q.QueryRow(ctx, `
INSERT INTO mention_claims (message_id, owner)
SELECT $1, $2 FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
ON CONFLICT (message_id) DO UPDATE SET owner = EXCLUDED.owner
    WHERE mention_claims.owner = EXCLUDED.owner
RETURNING true`, messageID, owner).Scan(&claimed)
	if err != nil {
		if err = interpretError(err); err == ErrNotFound {
			return false, nil
		}
		return false, fmt.Errorf("claim mention %s: %w", messageID, err)
	}
	return true, nil
}

// PruneMentionClaims deletes the claims made before before.
func PruneMentionClaims(ctx context.Context, q Querier, before time.Time) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM mention_claims WHERE claimed_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("prune mention claims: %w", err)
	}
	return tag.RowsAffected(), nil
}

// TouchGateway records that the holder of the gateway lock key holds it now.
func TouchGateway(ctx context.Context, q Querier, key int64, now time.Time) error {
	_, err := q.Exec(ctx, `
INSERT INTO gateway_heartbeats (lock_key, seen_at) VALUES ($1, $2)
ON CONFLICT (lock_key) DO UPDATE SET seen_at = EXCLUDED.seen_at`, key, now)
	if err != nil {
		return fmt.Errorf("gateway heartbeat: %w", err)
	}
	return nil
}

// GatewaySeenAt is when the gateway of lock key was last known held; ok is
// false when it never was.
func GatewaySeenAt(ctx context.Context, q Querier, key int64) (at time.Time, ok bool, err error) {
	err = q.QueryRow(ctx, `SELECT seen_at FROM gateway_heartbeats WHERE lock_key = $1`, key).Scan(&at)
	if err == pgx.ErrNoRows {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("gateway heartbeat: %w", err)
	}
	return at, true, nil
}

// DiscordChannel is a Discord channel with a conversation; GuildID is empty
// for a DM.
type DiscordChannel struct {
	GuildID   string `db:"guild_id"`
	ChannelID string `db:"channel_id"`
}

// RecentDiscordChannels are the Discord channels whose conversations moved
// last, newest first, at most limit (deleted conversations aside, though
// only web ones can be deleted today).
func RecentDiscordChannels(ctx context.Context, q Querier, limit int) ([]DiscordChannel, error) {
	rows, err := q.Query(ctx, `
SELECT guild_id, channel_id FROM sessions
WHERE source = 'discord' AND channel_id <> '' AND deleted_at IS NULL
ORDER BY updated_at DESC, id DESC
LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("recent discord channels: %w", err)
	}
	chs, err := pgx.CollectRows(rows, pgx.RowToStructByName[DiscordChannel])
	if err != nil {
		return nil, fmt.Errorf("recent discord channels: %w", err)
	}
	return chs, nil
}
