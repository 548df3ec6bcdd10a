package channellog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
	second, err := call("guild:1", `{"continue_from":"`+tok+`"}`)
	if err != nil || !strings.Contains(second, "(21–25)") || !strings.Contains(second, "定期報告 0") || strings.Contains(second, "next_token") {
		t.Errorf("second page: %v\n%s", err, second)
	}
	if _, err := call("guild:2", `{"continue_from":"`+tok+`"}`); err == nil || !strings.Contains(err.Error(), "another server") {
		t.Errorf("another server's use of the token: %v", err)
	}
}

// TestSearchChannelLogDoesWhatItSays: the tool's own words about its
// arguments hold. A word of the query is found case-insensitively: a
// Japanese word of two characters or more anywhere in a message, an ASCII
// word at the start of a word (dock finds docker, ocker nothing). A member
// is found by id, <@id>, a whole word of an ASCII name (taro, not tar) or
// two characters or more of a Japanese name (田中, not 田). A channel is
// named by id, <#id> or a link into it; the next page is asked for with
// continue_from.
func TestSearchChannelLogDoesWhatItSays(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	id := func(min int) int64 { return db.SnowflakeAt(base.Add(time.Duration(min)*time.Minute)) + 1 }
	msg := func(min int, channel, author, name, text string) db.ChannelMessage {
		return db.ChannelMessage{MessageID: id(min), Space: "guild:1", GuildID: "1", ChannelID: channel,
			AuthorID: author, AuthorName: name, CreatedAt: base.Add(time.Duration(min) * time.Minute), Content: text}
	}
	ms := []db.ChannelMessage{
		msg(0, "10", "111", "Taro Yamada", "Docker のイメージを作り直しました"),
		msg(1, "10", "222", "田中花子", "集合場所は駅前の広場です"),
		msg(2, "11", "111", "Taro Yamada", "明日の集合は10時です"),
	}
	for i := range 25 {
		ms = append(ms, msg(100+i, "12", "333", "ぼっと", fmt.Sprintf("定期報告 %d", i)))
	}
	if _, err := db.InsertChannelMessages(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	tool := channellog.Tool(channellog.Deps{DB: pool, Signer: page.NewSigner(page.NewSecret(), time.Now), Location: time.UTC})
	call := func(js string) string {
		t.Helper()
		got, err := tool.Execute(tools.WithCaller(ctx, tools.Caller{Space: "guild:1"}), json.RawMessage(js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return got
	}
	docker, plaza, ten := "Docker のイメージ", "駅前の広場", "集合は10時"
	for _, tc := range []struct {
		name, args string
		want       []string // found; nil: nothing found
	}{
		{"a Japanese word inside a longer one", `{"query":"集合"}`, []string{plaza, ten}},
		{"two Japanese words", `{"query":"集合 広場"}`, []string{plaza}},
		{"an ASCII word, any case", `{"query":"DOCKER"}`, []string{docker}},
		{"the start of an ASCII word", `{"query":"dock"}`, []string{docker}},
		{"the middle of an ASCII word", `{"query":"ocker"}`, nil},
		{"a number", `{"query":"10"}`, []string{ten}},
		{"a number and a kanji", `{"query":"10時"}`, []string{ten}},
		{"one Japanese character, not alone in the message", `{"query":"時"}`, nil},
		{"member by a word of an ASCII name", `{"author":"taro"}`, []string{docker, ten}},
		{"member by the other word", `{"author":"Yamada"}`, []string{docker, ten}},
		{"member by part of an ASCII word", `{"author":"tar"}`, nil},
		{"member by two characters of a Japanese name", `{"author":"田中"}`, []string{plaza}},
		{"member by two other characters", `{"author":"花子"}`, []string{plaza}},
		{"member by one character", `{"author":"田"}`, nil},
		{"member by id", `{"author":"111","query":"集合"}`, []string{ten}},
		{"member by mention", `{"author":"<@222>"}`, []string{plaza}},
		{"channel by id", `{"channel":"11"}`, []string{ten}},
		{"channel by mention", `{"channel":"<#10>","query":"集合"}`, []string{plaza}},
		{"channel by a link into it", `{"channel":"https://discord.com/channels/1/10/` + fmt.Sprint(id(1)) + `"}`, []string{docker, plaza}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := call(tc.args)
			if tc.want == nil {
				if !strings.Contains(got, "No logged message matches") {
					t.Errorf("found something:\n%s", got)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, n := range []string{docker, plaza, ten} {
				if !slices.Contains(tc.want, n) && strings.Contains(got, n) {
					t.Errorf("holds %q:\n%s", n, got)
				}
			}
		})
	}

	first := call(`{"channel":"12"}`)
	_, more, tok := pagetest.ParseFooter(first)
	if !more {
		t.Fatalf("no next page:\n%s", first)
	}
	if second := call(`{"continue_from":"` + tok + `"}`); !strings.Contains(second, "(21–25)") || !strings.Contains(second, "定期報告 0") {
		t.Errorf("continue_from did not give the second page:\n%s", second)
	}
	props := tool.Meta().Parameters.Properties
	for arg, words := range map[string][]string{
		"query":         {"two characters or more", "dock finds docker"},
		"author":        {"whole word", "田中"},
		"channel":       {"<#id>", "link"},
		"continue_from": {"next_token"},
	} {
		for _, w := range words {
			if p, _ := props.Get(arg); !strings.Contains(p.Description, w) {
				t.Errorf("%s's description %q does not say %q", arg, p.Description, w)
			}
		}
	}
}
