package memory

import (
	"context"
	"slices"
	"sync"

	"github.com/yorozu-bot/yorozu/db"
)

// pendingTurns are the turns begun (Begin) and not yet stored or failed, by
// conversation: Context shows them as if they were stored.
type pendingTurns struct {
	mu    sync.Mutex
	turns map[SessionKey][]*pendingTurn
}

// pendingTurn is one begun turn: its messages as they will be stored (id
// 0), and done, closed once its commit has ended either way.
type pendingTurn struct {
	rows []db.Message
	done chan struct{}
}

func (ps *pendingTurns) add(key SessionKey, t Turn) *pendingTurn {
	p := &pendingTurn{done: make(chan struct{})}
	p.rows = append(p.rows, pendingRow(db.RoleUser, t.User))
	if t.Reply.Content != "" {
		p.rows = append(p.rows, pendingRow(db.RoleAssistant, t.Reply))
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.turns == nil {
		ps.turns = map[SessionKey][]*pendingTurn{}
	}
	ps.turns[key] = append(ps.turns[key], p)
	return p
}

func pendingRow(role string, r MessageRecord) db.Message {
	return db.Message{Role: role, AuthorID: r.AuthorID, AuthorName: r.AuthorName, Content: r.Content,
		PlatformMessageID: r.PlatformMessageID, Model: r.Model, CreatedAt: r.At}
}

func (ps *pendingTurns) remove(key SessionKey, p *pendingTurn) {
	ps.mu.Lock()
	ts := slices.DeleteFunc(ps.turns[key], func(q *pendingTurn) bool { return q == p })
	if len(ts) == 0 {
		delete(ps.turns, key)
	} else {
		ps.turns[key] = ts
	}
	ps.mu.Unlock()
	close(p.done)
}

// of returns the pending turns of key, in the order they began.
func (ps *pendingTurns) of(key SessionKey) []*pendingTurn {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return slices.Clone(ps.turns[key])
}

// settled waits until no turn of key whose user message is platformID is
// being stored (its rows can then be found, or are not coming).
func (ps *pendingTurns) settled(ctx context.Context, key SessionKey, platformID string) error {
	for _, p := range ps.of(key) {
		if p.rows[0].PlatformMessageID != platformID {
			continue
		}
		select {
		case <-p.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// latestQuestion is the platform id of the newest pending user message of
// key, and whether there is one.
func (ps *pendingTurns) latestQuestion(key SessionKey) (string, bool) {
	ts := ps.of(key)
	if len(ts) == 0 {
		return "", false
	}
	return ts[len(ts)-1].rows[0].PlatformMessageID, true
}

// in reports whether history (as read from the database) holds p already:
// its commit ended while the history was read. A message is recognised by
// its platform id, else by its role, text and time.
func (p *pendingTurn) in(history []db.Message) bool {
	for _, r := range p.rows {
		if slices.ContainsFunc(history, func(h db.Message) bool {
			if h.Role != r.Role {
				return false
			}
			if r.Role == db.RoleUser && r.PlatformMessageID != "" {
				return h.PlatformMessageID == r.PlatformMessageID
			}
			return h.Content == r.Content && h.CreatedAt.Equal(r.CreatedAt) && h.AuthorID == r.AuthorID
		}) {
			return true
		}
	}
	return false
}

// withPending returns history with the pending turns ps it does not hold
// yet, cut as the database read would be once they are stored.
func withPending(history []db.Message, ps []*pendingTurn, maxMessages, maxChars int) []db.Message {
	var add []db.Message
	for _, p := range ps {
		if !p.in(history) {
			add = append(add, p.rows...)
		}
	}
	if len(add) == 0 {
		return history
	}
	return recentCut(append(slices.Clone(history), add...), maxMessages, maxChars)
}
