package db

import (
	"context"
	"fmt"
)

// LatestQuestion is the platform id of the newest user message of session
// key ("" when it has none).
func LatestQuestion(ctx context.Context, q Querier, key string) (string, error) {
	var id string
	err := q.QueryRow(ctx, `
SELECT platform_message_id FROM messages
WHERE session_id = (SELECT id FROM sessions WHERE key = $1) AND role = 'user'
ORDER BY created_at DESC, id DESC LIMIT 1`, key).Scan(&id)
	if err = interpretError(err); err == ErrNotFound {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("latest question of session %q: %w", key, err)
	}
	return id, nil
}

// turnQuestion is the CTE u: the user message of session $1 whose platform
// id is $2. The array test lets messages_platform_ids_idx find it (a plain
// comparison alone would read the whole table); the comparison then keeps
// the question itself, not an answer that lists the id among its own.
const turnQuestion = `
WITH u AS MATERIALIZED (
    SELECT id FROM messages
    WHERE string_to_array(platform_message_id, ' ') @> ARRAY[$2::text] AND $2 <> ''
      AND platform_message_id = $2 AND role = 'user'
      AND session_id = (SELECT id FROM sessions WHERE key = $1)
)`

// DeleteTurn deletes the user message platformMessageID of session key and
// the answers to it (an answer regenerated replaces them), and returns how
// many messages went. A message already summarised is deleted too: its
// summary stays.
func DeleteTurn(ctx context.Context, q Querier, key, platformMessageID string) (int64, error) {
	tag, err := q.Exec(ctx, turnQuestion+`
DELETE FROM messages AS m USING u
WHERE m.id = u.id OR (m.reply_to_id = u.id AND m.role = 'assistant')`, key, platformMessageID)
	if err != nil {
		return 0, fmt.Errorf("delete turn of message %s in session %q: %w", platformMessageID, key, err)
	}
	return tag.RowsAffected(), nil
}
