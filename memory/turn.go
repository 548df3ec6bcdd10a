package memory

import (
	"context"
	"fmt"

	"github.com/yorozu-bot/yorozu/db"
)

// LatestQuestion is the Discord id of the newest user message of the
// conversation ("" when it has none).
func (m *Memory) LatestQuestion(ctx context.Context, key SessionKey) (string, error) {
	if id, ok := m.pending.latestQuestion(key); ok {
		return id, nil // begun, being stored: the newest
	}
	return db.LatestQuestion(ctx, m.pool, string(key))
}

// ForgetTurn drops the turn of the user's message userMessageID (the
// message and its answer) from conversation key, so that an answer
// regenerated from Discord's 再生成 is the one kept. A turn not stored is
// no error. A turn still being stored is waited for.
func (m *Memory) ForgetTurn(ctx context.Context, key SessionKey, userMessageID string) error {
	if err := m.pending.settled(ctx, key, userMessageID); err != nil {
		return fmt.Errorf("forget turn of message %s in session %q: %w", userMessageID, key, err)
	}
	_, err := db.DeleteTurn(ctx, m.pool, string(key), userMessageID)
	m.dropKey(key)
	return err
}
