package chat

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// A logged channel is read from the log, oldest first, the newest kept
// when over the limit, and so is a thread of it; a channel without a log,
// a thread whose parent is not known, and a DM, from the history.
func TestLogSource(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	on := true
	if err := db.SetChannelLog(ctx, pool, "900", "500", "", &on, "u1"); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var rows []db.ChannelMessage
	for i, text := range []string{"昨日の話", "集合は駅前", "10時で", "雨なら延期"} {
		at := base.Add(time.Duration(i) * 10 * time.Minute)
		if i == 0 {
			at = base.Add(-24 * time.Hour)
		}
		kind := db.AuthorMember
		if i == 3 {
			kind = db.AuthorBot
		}
		rows = append(rows, db.ChannelMessage{MessageID: db.SnowflakeAt(at) + int64(i), Space: "guild:900", GuildID: "900", ChannelID: "500",
			AuthorID: "u1", AuthorName: "aki", AuthorKind: kind, CreatedAt: at, Content: text, Attachments: []string{}})
	}
	if _, err := db.InsertChannelMessages(ctx, pool, rows); err != nil {
		t.Fatal(err)
	}
	history := &fakeSource{msgs: []ChannelMessage{{ID: "1", Author: "ben", At: base, Text: "履歴から"}}}
	threads := threadParents{"600": "500"}
	src := &LogSource{DB: pool, History: history, Threads: threads}
	thread := db.ChannelMessage{MessageID: db.SnowflakeAt(base) + 9, Space: "guild:900", GuildID: "900", ChannelID: "600", ParentID: "500",
		AuthorID: "u2", AuthorName: "ben", CreatedAt: base, Content: "スレッドでの返事"}
	if _, err := db.InsertChannelMessages(ctx, pool, []db.ChannelMessage{thread}); err != nil {
		t.Fatal(err)
	}

	got, truncated, err := src.ChannelMessages(ctx, "900", "500", base.Add(-time.Minute), time.Time{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !truncated || got[0].Text != "10時で" || got[1].Text != "雨なら延期" || !got[1].Bot || got[0].ID != rows[2].ID() {
		t.Errorf("from the log: %+v (truncated %v)", got, truncated)
	}
	got, _, err = src.ChannelMessages(ctx, "900", "600", base.Add(-time.Minute), time.Time{}, 10)
	if err != nil || len(got) != 1 || got[0].Text != "スレッドでの返事" || got[0].ID != thread.ID() {
		t.Errorf("a thread of the logged channel: %+v, %v; want its logged message", got, err)
	}
	for _, tc := range []struct{ guild, channel string }{{"900", "501"}, {"", "700"}, {"900", "601"}} {
		got, _, err := src.ChannelMessages(ctx, tc.guild, tc.channel, base.Add(-time.Minute), time.Time{}, 10)
		if err != nil || len(got) != 1 || got[0].Text != "履歴から" {
			t.Errorf("%s/%s: %+v, %v; want the history", tc.guild, tc.channel, got, err)
		}
	}
}

// threadParents is a fake ThreadParents: a thread's parent by its id; any
// other channel is unknown, as when Discord cannot be asked.
type threadParents map[string]string

var _ ThreadParents = threadParents(nil)

func (p threadParents) ThreadParent(_ context.Context, channelID string) (string, error) {
	if parent, ok := p[channelID]; ok {
		return parent, nil
	}
	return "", errors.New("unknown channel")
}
