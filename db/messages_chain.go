package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ChainMessage is a stored message found by its platform id, for following
// a reply chain.
type ChainMessage struct {
	ID                int64     `db:"id"`
	Role              string    `db:"role"`
	AuthorName        string    `db:"author_name"`
	Content           string    `db:"content"`
	PlatformMessageID string    `db:"platform_message_id"` // all its ids, space-separated
	CreatedAt         time.Time `db:"created_at"`
	// Parent is the platform id of the message this one answers or
	// replies to: for a reply, the user message it answers; for a user
	// message, the message it replied to. "" when there is none.
	Parent string `db:"parent"`
}

// MessageByPlatformID returns the message of session key that has
// platformID among its platform ids, archived or not, or ErrNotFound (also
// when the session was deleted: its text joins no context).
func MessageByPlatformID(ctx context.Context, q Querier, key, platformID string) (ChainMessage, error) {
	// The rows are found first (messages_platform_ids_idx), then ordered:
	// ordered by id with a LIMIT, the planner would rather walk the table.
	rows, err := q.Query(ctx, `
WITH hit AS MATERIALIZED (
    SELECT id, session_id, role, author_name, content, platform_message_id, created_at,
           reply_to_id, reply_to_platform_id
    FROM messages
    WHERE string_to_array(platform_message_id, ' ') @> ARRAY[$2::text] AND $2 <> ''
)
SELECT m.id, m.role, m.author_name, m.content, m.platform_message_id, m.created_at,
       CASE WHEN m.role = 'assistant' THEN COALESCE(u.platform_message_id, '')
            ELSE m.reply_to_platform_id END AS parent
FROM hit m
JOIN sessions s ON s.id = m.session_id
LEFT JOIN messages u ON u.id = m.reply_to_id
WHERE s.key = $1 AND s.deleted_at IS NULL
ORDER BY m.id DESC
LIMIT 1`, key, platformID)
	if err != nil {
		return ChainMessage{}, fmt.Errorf("message %s in session %q: %w", platformID, key, err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[ChainMessage])
	if err != nil {
		return ChainMessage{}, fmt.Errorf("message %s in session %q: %w", platformID, key, interpretError(err))
	}
	return m, nil
}
