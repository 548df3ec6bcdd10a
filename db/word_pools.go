package db

import (
	"context"
	"fmt"
)

// SavedWordPool returns the nouns last saved for space's word pool,
// oldest first; ok is false when none was saved.
func SavedWordPool(ctx context.Context, q Querier, space string) (words []string, ok bool, err error) {
	err = q.QueryRow(ctx, "SELECT words FROM word_pools WHERE space = $1", space).Scan(&words)
	if err = interpretError(err); err == ErrNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("saved word pool of space %s: %w", space, err)
	}
	return words, true, nil
}

// SaveWordPool stores the nouns of space's word pool, oldest first, in
// place of what was saved before.
func SaveWordPool(ctx context.Context, q Querier, space string, words []string) error {
	if words == nil {
		words = []string{}
	}
	if _, err := q.Exec(ctx, `
INSERT INTO word_pools (space, words, saved_at) VALUES ($1, $2, now())
ON CONFLICT (space) DO UPDATE SET words = EXCLUDED.words, saved_at = EXCLUDED.saved_at`, space, words); err != nil {
		return fmt.Errorf("save word pool of space %s: %w", space, err)
	}
	return nil
}
