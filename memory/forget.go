package memory

import (
	"context"
	"fmt"

	"github.com/yorozu-bot/yorozu/db"
)

// Forget archives the unsummarised messages of session key (the /forget
// command): they stay in the history but leave the model's context. The
// documents fetched in the conversation are deleted. It returns how many
// messages were archived. Summaries are kept.
func (m *Memory) Forget(ctx context.Context, key SessionKey) (int64, error) {
	n, err := db.ArchiveSession(ctx, m.pool, string(key), m.opts.Now())
	defer m.dropKey(key)
	if err != nil {
		return 0, fmt.Errorf("forget session %q: %w", key, err)
	}
	// Documents fetched in the forgotten conversation go with it.
	if err := m.forgetFetched(ctx, key); err != nil {
		return n, fmt.Errorf("forget session %q: %w", key, err)
	}
	return n, nil
}

// Summaries returns the live summaries of session key, oldest first (the
// /memory command and the admin page).
func (m *Memory) Summaries(ctx context.Context, key SessionKey) ([]db.Memory, error) {
	ms, err := db.LiveMemoriesByKey(ctx, m.pool, string(key), maxSummaries)
	if err != nil {
		return nil, fmt.Errorf("summaries of session %q: %w", key, err)
	}
	return ms, nil
}

// ForgetSummaries forgets the summaries of session key (/forget with
// summaries): they leave the context and /memory at once and are deleted
// in the background; the messages they covered stay archived in the
// history. It returns how many live summaries (those /memory showed) were
// forgotten.
func (m *Memory) ForgetSummaries(ctx context.Context, key SessionKey) (int64, error) {
	n, err := db.ForgetMemoriesByKey(ctx, m.pool, string(key), m.opts.Now())
	m.dropKey(key)
	if err != nil {
		return 0, fmt.Errorf("forget summaries of session %q: %w", key, err)
	}
	return n, nil
}
