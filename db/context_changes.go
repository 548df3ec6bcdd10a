package db

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// contextChannel is where the triggers of migration 0039 announce changes
// to what a turn's context reads.
const contextChannel = "yorozu_context"

// ContextListenerName is the application_name of the connection that
// listens for context changes, as pg_stat_activity shows it.
const ContextListenerName = "yorozu context cache"

// ContextChange is one change announced on the context channel: of session
// Key's own rows, or of Space's (knowledge, notes), or of member User's facts
// in Space. Origin is the tag of the writing transaction (see
// CommitWithoutFlush), "" when it had none.
type ContextChange struct {
	Origin string `json:"o"`
	Key    string `json:"k"`
	Space  string `json:"s"`
	User   string `json:"u"`
}

// ListenContextChanges listens for context changes on a connection of its
// own (taken out of pool for good) until ctx ends or the connection fails,
// and returns why. listening is called once the listening is in effect:
// every change committed after it returns reaches fn, in commit order. A
// payload that does not parse reaches fn as a change of everything (all
// fields empty).
func ListenContextChanges(ctx context.Context, pool *pgxpool.Pool, listening func(), fn func(ContextChange)) error {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("listen for context changes: %w", err)
	}
	conn := c.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SET application_name = '"+ContextListenerName+"'; LISTEN "+contextChannel); err != nil {
		return fmt.Errorf("listen for context changes: %w", err)
	}
	listening()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("listen for context changes: %w", err)
		}
		var ch ContextChange
		if json.Unmarshal([]byte(n.Payload), &ch) != nil {
			ch = ContextChange{}
		}
		fn(ch)
	}
}
