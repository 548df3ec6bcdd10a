package bot

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/memory"
)

// awayReplyLog fails its first writes as a database that has gone away
// does, then keeps the ids.
type awayReplyLog struct {
	mu    sync.Mutex
	fails int
	tries int
	kept  map[string][]string
}

func (l *awayReplyLog) RecordReplyIDs(_ context.Context, _ memory.SessionKey, userMessageID string, ids []string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tries++
	if l.tries <= l.fails {
		return errors.New("set reply id: unexpected EOF")
	}
	if l.kept == nil {
		l.kept = map[string][]string{}
	}
	l.kept[userMessageID] = ids
	return nil
}

func (l *awayReplyLog) keptFor(id string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.kept[id]
}

// TestReplyIDsKeptOnceTheDatabaseIsBack: an answer sent while the database
// is away keeps its ids once it answers again, and nothing is logged.
func TestReplyIDsKeptOnceTheDatabaseIsBack(t *testing.T) {
	replies := &awayReplyLog{fails: 2}
	h := start(t, func(o *Options) { o.Replies = replies })
	asked := h.mention(chanID, "42", "こんにちは")
	sent := h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 1 })

	ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
	defer cancel()
	for len(replies.keptFor(asked.ID)) == 0 {
		if ctx.Err() != nil {
			t.Fatalf("the answer's ids were not kept after the database came back:\n%s", h.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := replies.keptFor(asked.ID); len(got) != 1 || got[0] != sent[0].ID {
		t.Errorf("kept %v, want [%s]", got, sent[0].ID)
	}
	if strings.Contains(h.logs.String(), "record reply ids") {
		t.Errorf("a write retried until it went in was logged:\n%s", h.logs)
	}
}
