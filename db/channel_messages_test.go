package db_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// logged is a logged message of guild 1 at minute min after base.
func logged(id int64, channel, author, content string, at time.Time) db.ChannelMessage {
	return db.ChannelMessage{
		MessageID: id, Space: "guild:1", GuildID: "1", ChannelID: channel, AuthorID: author,
		AuthorName: "name" + author, CreatedAt: at, Content: content,
	}
}

// TestChannelLog: stored, edited, deleted, forgotten per member, searched
// by a two-character Japanese word within its space only, and pruned by age.
func TestChannelLog(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	id := func(min int) int64 { return db.SnowflakeAt(base.Add(time.Duration(min)*time.Minute)) + 1 }
	long := strings.Repeat("長文", 2000) // 4,000 characters
	ms := []db.ChannelMessage{
		logged(id(0), "10", "u1", "土曜のBBQは駅前に集合でお願いします", base),
		logged(id(1), "10", "u2", "了解、集合は10時ね", base.Add(time.Minute)),
		logged(id(2), "10", "u2", "", base.Add(2*time.Minute)),
		logged(id(3), "11", "u1", long, base.Add(3*time.Minute)),
	}
	ms[2].Attachments = []string{"map.png", "plan.pdf"}
	other := logged(id(4), "20", "u1", "別のサーバーでも集合", base.Add(4*time.Minute))
	other.Space, other.GuildID = "guild:2", "2"
	ms = append(ms, other)
	if n, err := db.InsertChannelMessages(ctx, pool, ms); err != nil || n != 5 {
		t.Fatalf("insert: %d, %v", n, err)
	}
	if n, err := db.InsertChannelMessages(ctx, pool, ms[:1]); err != nil || n != 0 {
		t.Fatalf("insert again: %d, %v; want 0 new", n, err)
	}

	search := func(q db.ChannelLogQuery) []int64 {
		t.Helper()
		hits, err := db.SearchChannelLog(ctx, pool, q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, h := range hits {
			ids = append(ids, h.MessageID)
		}
		return ids
	}
	if got, want := search(db.ChannelLogQuery{Space: "guild:1", Query: "集合"}), []int64{id(1), id(0)}; !slices.Equal(got, want) {
		t.Errorf("集合 found %v, want %v (newest first, guild 1 only)", got, want)
	}
	if got, want := search(db.ChannelLogQuery{Space: "guild:1", Query: "集合", Author: "u1"}), []int64{id(0)}; !slices.Equal(got, want) {
		t.Errorf("集合 by u1 found %v, want %v", got, want)
	}
	if got, want := search(db.ChannelLogQuery{Space: "guild:1", Query: "bbq", Until: base.Add(30 * time.Second)}), []int64{id(0)}; !slices.Equal(got, want) {
		t.Errorf("bbq found %v, want %v", got, want)
	}
	if got := search(db.ChannelLogQuery{Space: "guild:1", Query: "集合", Since: base.Add(2 * time.Minute)}); len(got) != 0 {
		t.Errorf("集合 since minute 2 found %v, want none", got)
	}
	if got, want := search(db.ChannelLogQuery{Space: "guild:1", ChannelID: "11"}), []int64{id(3)}; !slices.Equal(got, want) {
		t.Errorf("channel 11 found %v, want %v", got, want)
	}
	hits, err := db.SearchChannelLog(ctx, pool, db.ChannelLogQuery{Space: "guild:1", ChannelID: "10", Limit: 1, Offset: 0, Author: "nameu2"})
	if err != nil || len(hits) != 1 || !slices.Equal(hits[0].Attachments, []string{"map.png", "plan.pdf"}) {
		t.Fatalf("attachments-only message: %+v, %v", hits, err)
	}
	if got, want := hits[0].JumpLink(), "https://discord.com/channels/1/10/"+itoa(id(2)); got != want {
		t.Errorf("jump link %s, want %s", got, want)
	}

	if err := db.EditChannelMessages(ctx, pool, []db.ChannelMessageEdit{{MessageID: id(1), Content: "了解、集合は11時に変更", EditedAt: base.Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	if got := search(db.ChannelLogQuery{Space: "guild:1", Query: "変更"}); !slices.Equal(got, []int64{id(1)}) {
		t.Errorf("edited text found %v", got)
	}
	if got := search(db.ChannelLogQuery{Space: "guild:1", Query: "10"}); len(got) != 0 {
		t.Errorf("text before the edit still found: %v", got)
	}

	if n, err := db.ForgetChannelMessagesOf(ctx, pool, "guild:1", "u2"); err != nil || n != 2 {
		t.Fatalf("forget u2: %d, %v; want 2", n, err)
	}
	if got := search(db.ChannelLogQuery{Space: "guild:1"}); !slices.Equal(got, []int64{id(3), id(0)}) {
		t.Errorf("after forgetting u2: %v", got)
	}
	if got := search(db.ChannelLogQuery{Space: "guild:2"}); !slices.Equal(got, []int64{id(4)}) {
		t.Errorf("u1's message in another server: %v", got)
	}

	if n, err := db.DeleteChannelMessages(ctx, pool, []int64{id(3), 42}); err != nil || n != 1 {
		t.Fatalf("delete: %d, %v", n, err)
	}
	if n, err := db.DeleteChannelMessagesBefore(ctx, pool, base.Add(time.Minute), 100); err != nil || n != 1 {
		t.Fatalf("retention: %d, %v; want the first message deleted", n, err)
	}
	if got := search(db.ChannelLogQuery{Space: "guild:1"}); len(got) != 0 {
		t.Errorf("left in guild 1: %v", got)
	}
	if n, err := db.DeleteChannelLog(ctx, pool, "2", "20"); err != nil || n != 1 {
		t.Fatalf("delete channel 20's log: %d, %v", n, err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestChannelLogOn: the thread's own setting wins, then its parent's,
// then the server's; off when nothing sets it.
func TestChannelLogOn(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	on, off := true, false
	for _, s := range []struct {
		ch, parent string
		v          *bool
	}{{"", "", &on}, {"10", "", &off}, {"11", "", &on}, {"t1", "10", &on}} {
		if err := db.SetChannelLog(ctx, pool, "1", s.ch, s.parent, s.v, "u1"); err != nil {
			t.Fatal(err)
		}
	}
	ss, err := db.ChannelLogSettings(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, guild, ch, parent string
		want                    bool
	}{
		{"server default", "1", "12", "", true},
		{"channel off", "1", "10", "", false},
		{"thread of a channel off, itself on", "1", "t1", "10", true},
		{"thread inherits its channel", "1", "t2", "10", false},
		{"other server", "2", "10", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := db.ChannelLogOn(ss, tc.guild, tc.ch, tc.parent); got != tc.want {
				t.Errorf("on = %v, want %v", got, tc.want)
			}
		})
	}
	counts, err := db.ChannelLogCounts(ctx, pool)
	if err != nil || len(counts) != 1 || counts[0].ChannelID != "11" || !counts[0].On {
		t.Errorf("counts %+v, %v; want channel 11 on", counts, err)
	}
}

// TestChannelLogNarrowed: a search narrowed to a channel finds its
// threads' messages too and no other channel's; narrowed to a member, by
// id or by a part of their name (two characters of a Japanese name, a word
// of an ASCII one), with words or without; a member who wrote
// nothing finds nothing.
func TestChannelLogNarrowed(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	id := func(min int) int64 { return db.SnowflakeAt(base.Add(time.Duration(min)*time.Minute)) + 1 }
	msg := func(min int, channel, parent, author, name, content string) db.ChannelMessage {
		m := logged(id(min), channel, author, content, base.Add(time.Duration(min)*time.Minute))
		m.ParentID, m.AuthorName = parent, name
		return m
	}
	ms := []db.ChannelMessage{
		msg(0, "10", "", "u1", "田中太郎", "集合は駅前で"),
		msg(1, "15", "10", "u2", "Taro Yamada", "スレッドでも集合の話"),
		msg(2, "11", "", "u1", "田中太郎", "別のチャンネルで集合"),
		msg(3, "10", "", "u2", "Taro Yamada", "了解です"),
		msg(4, "15", "10", "u1", "田中太郎", "写真です"),
	}
	if _, err := db.InsertChannelMessages(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    db.ChannelLogQuery
		want []int64
	}{
		{"word in a channel and its thread", db.ChannelLogQuery{Query: "集合", ChannelID: "10"}, []int64{id(1), id(0)}},
		{"word in a thread", db.ChannelLogQuery{Query: "集合", ChannelID: "15"}, []int64{id(1)}},
		{"a channel's newest, threads included", db.ChannelLogQuery{ChannelID: "10", Limit: 3}, []int64{id(4), id(3), id(1)}},
		{"a channel's next page", db.ChannelLogQuery{ChannelID: "10", Limit: 3, Offset: 3}, []int64{id(0)}},
		{"a channel since minute 1", db.ChannelLogQuery{ChannelID: "10", Since: base.Add(time.Minute)}, []int64{id(4), id(3), id(1)}},
		{"member by Japanese name", db.ChannelLogQuery{Query: "集合", Author: "田中"}, []int64{id(2), id(0)}},
		{"member by a word of an ASCII name", db.ChannelLogQuery{Author: "taro"}, []int64{id(3), id(1)}},
		{"member by id in a channel", db.ChannelLogQuery{Author: "u1", ChannelID: "10"}, []int64{id(4), id(0)}},
		{"member who wrote nothing", db.ChannelLogQuery{Query: "集合", Author: "nobody"}, nil},
		{"channel with no such word", db.ChannelLogQuery{Query: "python", ChannelID: "10"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Space = "guild:1"
			if got := searchIDs(t, pool, tc.q); !slices.Equal(got, tc.want) {
				t.Errorf("found %v, want %v", got, tc.want)
			}
		})
	}
}

// TestChannelLogCommonWord: a word in more messages than are checked at
// once is searched back from the newest day: the newest hits come first,
// a later page follows on, and a member's hits among them are found.
func TestChannelLogCommonWord(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	now := time.Now().Add(-time.Minute)
	const n = 300
	ms := make([]db.ChannelMessage, n)
	for i := range ms {
		at := now.Add(-time.Duration(i) * 2 * time.Hour) // 25 days
		ms[i] = logged(db.SnowflakeAt(at)+1, "10", "u"+strconv.Itoa(i%7), "今日の天気は晴れ "+strconv.Itoa(i), at)
	}
	if _, err := db.InsertChannelMessages(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    db.ChannelLogQuery
		want []int64
	}{
		{"newest first", db.ChannelLogQuery{Query: "天気", Limit: 3}, []int64{ms[0].MessageID, ms[1].MessageID, ms[2].MessageID}},
		{"a later page", db.ChannelLogQuery{Query: "天気", Limit: 2, Offset: 100}, []int64{ms[100].MessageID, ms[101].MessageID}},
		{"a member's", db.ChannelLogQuery{Query: "天気", Author: "u3", Limit: 2}, []int64{ms[3].MessageID, ms[10].MessageID}},
		{"the oldest", db.ChannelLogQuery{Query: "天気 299"}, []int64{ms[n-1].MessageID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Space = "guild:1"
			if got := searchIDs(t, pool, tc.q); !slices.Equal(got, tc.want) {
				t.Errorf("found %v, want %v", got, tc.want)
			}
		})
	}
}

// searchIDs are the ids of the messages SearchChannelLog finds for q, in
// its order.
func searchIDs(t *testing.T, pool db.Querier, q db.ChannelLogQuery) []int64 {
	t.Helper()
	hits, err := db.SearchChannelLog(t.Context(), pool, q)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.MessageID)
	}
	return ids
}

// TestChannelLogDenseWalk: a search whose terms many messages hold, read
// back through the newest rows (and, when they hold too few hits, through
// the widening windows), finds the same hits in the same order as the
// index's lookup of every candidate: words, an ASCII prefix, pages,
// periods, a channel, a member, a word only old messages hold, and a
// character that is no term of its own beside a number.
func TestChannelLogDenseWalk(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	now := time.Now().Add(-time.Minute)
	const n = 2600
	var ms []db.ChannelMessage
	for i := range n {
		at := now.Add(-time.Duration(i) * 10 * time.Minute) // 18 days
		words := []string{"今日は" + strconv.Itoa(i)}
		if i%2 == 0 {
			words = append(words, "天気がいい")
		}
		if i%3 == 0 {
			words = append(words, "docker を試す")
		}
		if i > n-300 && i%4 == 0 {
			words = append(words, "化石の話")
		}
		channel := "10"
		if i%5 == 0 {
			channel = "11"
		}
		m := logged(db.SnowflakeAt(at)+1, channel, "u"+strconv.Itoa(i%7), strings.Join(words, "、"), at)
		ms = append(ms, m)
		other := m // another server's twin, never found
		other.MessageID++
		other.Space, other.GuildID = "guild:2", "2"
		ms = append(ms, other)
	}
	if _, err := db.InsertChannelMessages(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	day := 24 * time.Hour
	queries := []struct {
		name string
		q    db.ChannelLogQuery
	}{
		{"common word", db.ChannelLogQuery{Query: "天気", Limit: 10}},
		{"a later page", db.ChannelLogQuery{Query: "天気", Limit: 5, Offset: 40}},
		{"ASCII prefix", db.ChannelLogQuery{Query: "dock", Limit: 10}},
		{"two words", db.ChannelLogQuery{Query: "天気 docker", Limit: 10}},
		{"last 3 days", db.ChannelLogQuery{Query: "天気", Since: now.Add(-3 * day), Limit: 10}},
		{"until 5 days ago", db.ChannelLogQuery{Query: "docker", Until: now.Add(-5 * day), Limit: 10}},
		{"a period", db.ChannelLogQuery{Query: "天気", Since: now.Add(-9 * day), Until: now.Add(-8 * day), Limit: 200}},
		{"in a channel", db.ChannelLogQuery{Query: "天気", ChannelID: "11", Limit: 10}},
		{"by a member", db.ChannelLogQuery{Query: "docker", Author: "u3", Limit: 10}},
		{"only old messages", db.ChannelLogQuery{Query: "化石", Limit: 10}},
		// は of 今日は12 is no term of its own (日は is): 12 is looked up,
		// は12 checked as a substring.
		{"a character beside a number", db.ChannelLogQuery{Query: "は12", Limit: 10}},
	}
	want := map[string][]int64{}
	t.Run("lookup", func(t *testing.T) {
		db.SetSearchSizes(t, n*2, 0) // every candidate looked up
		for _, tc := range queries {
			tc.q.Space = "guild:1"
			want[tc.name] = searchIDs(t, pool, tc.q)
			if len(want[tc.name]) == 0 {
				t.Errorf("%s: nothing found", tc.name)
			}
		}
	})
	for _, way := range []struct {
		name      string
		few, walk int
	}{
		{"windows", 0, 0},
		{"walk", 0, 1000},
		{"short walk, then windows", 0, 1},
		{"short walk, then lookup", n * 2, 1},
	} {
		t.Run(way.name, func(t *testing.T) {
			db.SetSearchSizes(t, way.few, way.walk)
			for _, tc := range queries {
				tc.q.Space = "guild:1"
				if got := searchIDs(t, pool, tc.q); !slices.Equal(got, want[tc.name]) {
					t.Errorf("%s: found %v, want %v", tc.name, got, want[tc.name])
				}
			}
		})
	}
}

// TestChannelLogPhrase: a phrase is found where it is written as one, not
// where its characters are spread over the message or in another order.
func TestChannelLogPhrase(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	now := time.Now().Add(-time.Hour)
	var ms []db.ChannelMessage
	for i, content := range []string{
		"東京タワーって富士山より低いよね",
		"富士山って東京タワーより高い",
		"東京タワーって高い、富士山も",
		"京タワーではない",
		"ああああ、東京タワーって富士山",
	} {
		at := now.Add(time.Duration(i) * time.Minute)
		ms = append(ms, logged(db.SnowflakeAt(at)+1, "10", "u1", content, at))
	}
	if _, err := db.InsertChannelMessages(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{"東京タワーって富士山", []int64{ms[4].MessageID, ms[0].MessageID}},
		{"ああ", []int64{ms[4].MessageID}},
		{"京タワー", []int64{ms[4].MessageID, ms[3].MessageID, ms[2].MessageID, ms[1].MessageID, ms[0].MessageID}},
	} {
		if got := searchIDs(t, pool, db.ChannelLogQuery{Space: "guild:1", Query: tc.query}); !slices.Equal(got, tc.want) {
			t.Errorf("%s: found %v, want %v", tc.query, got, tc.want)
		}
	}
}
