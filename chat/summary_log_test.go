package chat

import (
	"context"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// A logged channel is read from the log, oldest first, the newest kept
// when over the limit; a channel without a log, and a DM, from the
// history.
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
	src := &LogSource{DB: pool, History: history}

	got, truncated, err := src.ChannelMessages(ctx, "900", "500", base.Add(-time.Minute), time.Time{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !truncated || got[0].Text != "10時で" || got[1].Text != "雨なら延期" || !got[1].Bot || got[0].ID != rows[2].ID() {
		t.Errorf("from the log: %+v (truncated %v)", got, truncated)
	}
	for _, tc := range []struct{ guild, channel string }{{"900", "501"}, {"", "700"}} {
		got, _, err := src.ChannelMessages(ctx, tc.guild, tc.channel, base.Add(-time.Minute), time.Time{}, 10)
		if err != nil || len(got) != 1 || got[0].Text != "履歴から" {
			t.Errorf("%s/%s: %+v, %v; want the history", tc.guild, tc.channel, got, err)
		}
	}
}
