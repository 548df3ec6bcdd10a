package channellog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/channellog"
	"github.com/yorozu-bot/yorozu/tools/page"
	"github.com/yorozu-bot/yorozu/tools/page/pagetest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// TestSearchChannelLog: a two-character Japanese word finds the message
// with its time, author, jump link and line; author, channel and time
// narrow; another server's log and a forged channel are out of reach; long
// results come in pages.
func TestSearchChannelLog(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	jst := time.FixedZone("JST", 9*3600)
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, jst)
	id := func(min int) int64 { return db.SnowflakeAt(base.Add(time.Duration(min)*time.Minute)) + 1 }
	msg := func(min int, guild, channel, author, text string) db.ChannelMessage {
		return db.ChannelMessage{MessageID: id(min), Space: "guild:" + guild, GuildID: guild, ChannelID: channel,
			AuthorID: "id-" + author, AuthorName: author, CreatedAt: base.Add(time.Duration(min) * time.Minute), Content: text}
	}
	ms := []db.ChannelMessage{
		msg(0, "1", "10", "たろう", "先週のBBQの集合場所は駅前の広場です"),
		msg(1, "1", "10", "はなこ", "了解！"),
		msg(2, "1", "11", "はなこ", "別チャンネルでも集合の話"),
		msg(3, "2", "20", "じろう", "よそのサーバーの集合"),
	}
	for i := range 25 {
		ms = append(ms, msg(100+i, "1", "12", "ぼっと", fmt.Sprintf("定期報告 %d", i)))
	}
	if _, err := db.InsertChannelMessages(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	tool := channellog.Tool(channellog.Deps{DB: pool, Signer: page.NewSigner(page.NewSecret(), time.Now), Location: jst})
	call := func(space, js string) (string, error) {
		return tool.Execute(tools.WithCaller(ctx, tools.Caller{Space: space}), json.RawMessage(js))
	}
	link := "https://discord.com/channels/1/10/" + fmt.Sprint(id(0))
	for _, tc := range []struct {
		name, space, args string
		want, not         []string
		err               string
	}{
		{name: "two-character word", space: "guild:1", args: `{"query":"集合"}`,
			want: []string{"2026-05-01 10:00 たろう " + link, "先週のBBQの集合場所は駅前の広場です", "別チャンネルでも集合の話"},
			not:  []string{"よそのサーバー"}},
		{name: "by author", space: "guild:1", args: `{"query":"集合","author":"たろう"}`, want: []string{link}, not: []string{"別チャンネル"}},
		{name: "by channel mention", space: "guild:1", args: `{"query":"集合","channel":"<#11>"}`, want: []string{"別チャンネル"}, not: []string{"広場"}},
		{name: "until", space: "guild:1", args: `{"query":"集合","until":"2026-05-01 10:01"}`, want: []string{"広場"}, not: []string{"別チャンネル"}},
		{name: "since", space: "guild:1", args: `{"query":"集合","since":"2026-05-01T10:02:00+09:00"}`, want: []string{"別チャンネル"}, not: []string{"広場"}},
		{name: "nothing", space: "guild:1", args: `{"query":"ラーメン"}`, want: []string{"No logged message matches"}},
		{name: "another server's channel", space: "guild:1", args: `{"query":"集合","channel":"20"}`, err: "channel 20 has no log in this server"},
		{name: "forged channel", space: "guild:1", args: `{"channel":"#general'; DROP TABLE x"}`, err: "is not a channel id"},
		{name: "a bad time", space: "guild:1", args: `{"since":"先週"}`, err: "since \"先週\": not a time"},
		{name: "a DM", space: "dm:5", args: `{"query":"集合"}`, err: "not in a server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(tc.space, tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %q, %v; want an error saying %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("result holds %q:\n%s", n, got)
				}
			}
		})
	}

	first, err := call("guild:1", `{"channel":"12"}`)
	if err != nil {
		t.Fatal(err)
	}
	text, more, tok := pagetest.ParseFooter(first)
	if !more || !strings.Contains(text, "定期報告 24") || strings.Contains(text, "定期報告 4\n") {
		t.Fatalf("first page: more=%v\n%s", more, first)
	}
	second, err := call("guild:1", `{"token":"`+tok+`"}`)
	if err != nil || !strings.Contains(second, "(21–25)") || !strings.Contains(second, "定期報告 0") || strings.Contains(second, "next_token") {
		t.Errorf("second page: %v\n%s", err, second)
	}
	if _, err := call("guild:2", `{"token":"`+tok+`"}`); err == nil || !strings.Contains(err.Error(), "another server") {
		t.Errorf("another server's use of the token: %v", err)
	}
}
