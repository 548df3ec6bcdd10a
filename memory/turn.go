package memory

import (
	"context"

	"github.com/yorozu-bot/yorozu/db"
)

// LatestQuestion is the Discord id of the newest user message of the
// conversation ("" when it has none).
func (m *Memory) LatestQuestion(ctx context.Context, key SessionKey) (string, error) {
	return db.LatestQuestion(ctx, m.pool, string(key))
}

// ForgetTurn drops the turn of the user's message userMessageID (the
// message and its answer) from conversation key, so that an answer
// regenerated from Discord's 再生成 is the one kept. A turn not stored is
// no error.
func (m *Memory) ForgetTurn(ctx context.Context, key SessionKey, userMessageID string) error {
	_, err := db.DeleteTurn(ctx, m.pool, string(key), userMessageID)
	return err
}
