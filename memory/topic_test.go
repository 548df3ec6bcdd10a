package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/memory/wordpool"
)

func TestRelatedTopic(t *testing.T) {
	f := newFixture(t)
	pool := wordpool.New(0)
	m := f.memory(t, func(o *memory.Options) {
		o.Words = func(context.Context, memory.Space) memory.WordPool { return pool }
	})
	ctx := context.Background()
	key := memory.DiscordChannel("c1")
	space := memory.GuildSpace("g1")
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	for i, turn := range [][2]string{
		{"ポケモンカードを集めてる", "コレクション、楽しいですよね。"},
		{"富士山に登ったよ", "山頂からの眺めは格別です。"},
		{"将棋の定跡を覚えたい", "将棋なら矢倉から始めましょう。"},
	} {
		if err := m.Record(ctx, key, memory.Turn{
			Source: "discord", GuildID: "g1",
			User:  memory.MessageRecord{AuthorName: "たろう", Content: turn[0], At: t0.Add(time.Duration(i) * time.Minute)},
			Reply: memory.MessageRecord{Content: turn[1], At: t0.Add(time.Duration(i)*time.Minute + time.Second)},
		}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "tags of all six messages", func() bool {
		return count(t, f.pool, "SELECT count(DISTINCT message_id) FROM message_tags") == 6
	})
	pool.AddNouns([]string{"北海道"}) // said in another channel

	for _, tc := range []struct {
		name  string
		space memory.Space
		text  string
		want  []string // any of these
	}{
		{"the same word", space, "暇だから将棋でもする？", []string{"将棋"}},
		{"a tag containing the word", space, "ポケモンって今も人気？", []string{"ポケモンカード"}},
		{"a tag containing a word", space, "富士山麓の湖", []string{"富士山"}},
		{"nothing close: a word of the text the pool knows", space, "北海道と沖縄", []string{"北海道"}},
		{"another space has no tags: the pool", memory.GuildSpace("g2"), "将棋", []string{"将棋"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.RelatedTopic(ctx, tc.space, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if !contains(tc.want, got) {
				t.Errorf("RelatedTopic(%q) = %q, want one of %q", tc.text, got, tc.want)
			}
		})
	}

	got, err := m.RecentTopic(ctx, space)
	if err != nil {
		t.Fatal(err)
	}
	if got == "" || count(t, f.pool, "SELECT count(*) FROM message_tags WHERE tag = $1", got) == 0 {
		t.Errorf("RecentTopic = %q, want a tag of the recent messages", got)
	}
}

// Small talk's topics come from tags kept in memory: this process's own
// turns show in them at once, another process's once the kept tags are
// older than TopicTagsRefresh.
func TestRelatedTopicKeepsTheTags(t *testing.T) {
	f := newFixture(t)
	const refresh = 2 * time.Second
	m := f.memory(t, func(o *memory.Options) { o.TopicTagsRefresh = refresh })
	other := f.memory(t, nil) // another process on the same database
	ctx := context.Background()
	space := memory.GuildSpace("g1")
	t0 := time.Now().Add(-time.Hour)
	n := 0
	say := func(m *memory.Memory, channel, text string) {
		t.Helper()
		n++
		at := t0.Add(time.Duration(n) * time.Minute)
		if err := m.Record(ctx, memory.DiscordChannel(channel), memory.Turn{
			Source: "discord", GuildID: "g1",
			User:  memory.MessageRecord{AuthorName: "たろう", Content: text, At: at},
			Reply: memory.MessageRecord{Content: "いいですね。", At: at.Add(time.Second)},
		}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the turn's tags", func() bool {
			return count(t, f.pool, "SELECT count(*) FROM message_tags t JOIN messages m ON m.id = t.message_id WHERE m.content = $1", text) > 0
		})
	}
	topic := func(text string) string {
		t.Helper()
		got, err := m.RelatedTopic(ctx, space, text)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	say(m, "c1", "将棋の定跡を覚えたい")
	if got := topic("将棋しよう"); got != "将棋" {
		t.Fatalf("first topic = %q, want 将棋", got)
	}
	say(m, "c1", "富士山に登ったよ")
	tagged := time.Now()
	eventually(t, "this process's new tag", func() bool { return topic("富士山麓の湖") == "富士山" })
	if waited := time.Since(tagged); waited >= refresh {
		t.Errorf("this process's new tag showed after %v, not at once", waited)
	}

	say(other, "c2", "ラーメンの食べ歩き")
	started := time.Now()
	if got := topic("ラーメン屋"); got == "ラーメン" && time.Since(started) < refresh {
		t.Errorf("another process's tag was read at once: the tags were not kept")
	}
	eventually(t, "another process's tag, after TopicTagsRefresh", func() bool { return topic("ラーメン屋") == "ラーメン" })
}

func TestRelatedTopicWithNothingSaid(t *testing.T) {
	f := newFixture(t)
	m := f.memory(t, func(o *memory.Options) {
		o.Words = func(context.Context, memory.Space) memory.WordPool { return wordpool.New(0) }
	})
	for _, text := range []string{"", "えっと"} {
		got, err := m.RelatedTopic(context.Background(), memory.GuildSpace("g1"), text)
		if err != nil || got != "" {
			t.Errorf("RelatedTopic(%q) = %q, %v; want nothing", text, got, err)
		}
	}
	if got, err := m.RecentTopic(context.Background(), memory.GuildSpace("g1")); err != nil || got != "" {
		t.Errorf("RecentTopic = %q, %v; want nothing", got, err)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
