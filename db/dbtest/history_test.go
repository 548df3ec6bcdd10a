package dbtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// TestHistoryShape checks that a small history has the shape the real bot
// leaves: replies found from their user message by Discord id, all but the
// newest messages archived under summaries, most summaries folded, three
// tags per message, and the app's own queries reading it.
func TestHistoryShape(t *testing.T) {
	ctx := context.Background()
	h := dbtest.History{Messages: 4000, Sessions: 20, Spaces: 3, DMEvery: 10}
	start := time.Now()
	pool := dbtest.NewHistory(t, h)
	t.Logf("history of %d messages ready in %v", h.Messages, time.Since(start))

	var messages, sessions, unarchived, replies, linked, tags, memories, live, knowledge int
	err := pool.QueryRow(ctx, `SELECT
    (SELECT count(*) FROM messages),
    (SELECT count(*) FROM sessions),
    (SELECT count(*) FROM messages WHERE archived_at IS NULL),
    (SELECT count(*) FROM messages WHERE role = 'assistant'),
    (SELECT count(*) FROM messages r JOIN messages u ON u.id = r.reply_to_id
     WHERE r.role = 'assistant' AND u.role = 'user' AND u.session_id = r.session_id),
    (SELECT count(*) FROM message_tags),
    (SELECT count(*) FROM memories),
    (SELECT count(*) FROM memories WHERE folded_into IS NULL),
    (SELECT count(*) FROM knowledge_entries)`).
		Scan(&messages, &sessions, &unarchived, &replies, &linked, &tags, &memories, &live, &knowledge)
	if err != nil {
		t.Fatal(err)
	}
	// 200 messages per conversation: 190 archived under 10 summaries, 8 live.
	want := map[string][2]int{
		"messages": {messages, 4000}, "sessions": {sessions, 20}, "unarchived": {unarchived, 20 * 10},
		"replies": {replies, 2000}, "linked replies": {linked, 2000}, "tags": {tags, 3 * 4000},
		"summaries": {memories, 20 * 10}, "live summaries": {live, 20 * 8}, "knowledge entries": {knowledge, 4},
	}
	for what, v := range want {
		if v[0] != v[1] {
			t.Errorf("%s = %d, want %d", what, v[0], v[1])
		}
	}

	_, _, space := h.Session(9)
	if space[:3] != "dm:" {
		t.Errorf("conversation 9 is in space %q, want a DM space", space)
	}
	key, _, _ := h.Session(1)
	user := h.PlatformID(1, 198)
	m, err := db.MessageByPlatformID(ctx, pool, key, user)
	if err != nil || m.Role != db.RoleUser {
		t.Fatalf("MessageByPlatformID(%s) = %+v, %v; want the user message", user, m, err)
	}
	reply, err := db.MessageByPlatformID(ctx, pool, key, h.PlatformID(1, 199))
	if err != nil || reply.Parent != user {
		t.Fatalf("reply = %+v, %v; want it to answer %s", reply, err, user)
	}
	recent := dbtest.RecentMessages(t, pool, key, 30)
	if len(recent) != 10 {
		t.Fatalf("recent messages = %d; want the 10 unarchived", len(recent))
	}
	s, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: recent[0].SessionID, Role: db.RoleUser, Content: "新しい"})
	if err != nil || s.ID != int64(messages)+1 {
		t.Fatalf("a new message got id %d, %v; want %d (sequences follow the history)", s.ID, err, messages+1)
	}
}
