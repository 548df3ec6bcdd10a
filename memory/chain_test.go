package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory"
)

func TestPersonaInTheSystemPrompt(t *testing.T) {
	pool := dbtest.New(t)
	key := memory.DiscordChannel("c1")
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	rec := memory.New(pool, memory.Options{})
	for i := range 20 {
		at := t0.Add(time.Duration(i) * time.Minute)
		if err := rec.Record(context.Background(), key, memory.Turn{Source: "discord", GuildID: "g1", ChannelID: "c1",
			User:  memory.MessageRecord{AuthorName: "たろう", Content: fmt.Sprintf("質問%d %s", i, strings.Repeat("長めの質問です。", 8)), At: at},
			Reply: memory.MessageRecord{Content: fmt.Sprintf("答え%d %s", i, strings.Repeat("長めの答えです。", 8)), At: at.Add(time.Second)},
		}); err != nil {
			t.Fatal(err)
		}
	}
	const budget = 1500
	m := memory.New(pool, memory.Options{TokenBudget: budget, MaxChars: 1 << 20})
	t.Cleanup(m.Close)
	ctx := context.Background()
	plain, err := m.Context(ctx, key, g1, "こんにちは")
	if err != nil {
		t.Fatal(err)
	}
	persona := "あなたは海賊の船長です。語尾は「だぜ」。" + strings.Repeat("海の話が好き。", 100)
	msgs, err := m.Context(ctx, key, g1, "こんにちは", memory.WithPersona(persona))
	if err != nil {
		t.Fatal(err)
	}
	system := msgs[0].Content
	guidance, at, p := strings.Index(system, memory.DefaultPersona), strings.Index(system, "現在:"), strings.Index(system, persona)
	if guidance != 0 || at < 0 || p < at {
		t.Fatalf("persona not after yorozu's guidance and the time:\n%s", system)
	}
	if plain[0].Content != system[:len(plain[0].Content)] {
		t.Errorf("the persona changed yorozu's own guidance")
	}
	// It counts against the budget: fewer recent messages fit beside it.
	if n := promptTokens(msgs); n > budget {
		t.Errorf("prompt with persona is %d tokens; budget %d", n, budget)
	}
	if len(msgs) >= len(plain) {
		t.Errorf("with a long persona %d messages fit, without it %d: the persona was not counted", len(msgs), len(plain))
	}
	if empty, _ := m.Context(ctx, key, g1, "こんにちは", memory.WithPersona("  ")); empty[0].Content != plain[0].Content {
		t.Errorf("a blank persona changed the system prompt")
	}
}

func TestStoredReplyChain(t *testing.T) {
	pool := dbtest.New(t)
	m := memory.New(pool, memory.Options{})
	t.Cleanup(m.Close)
	ctx := context.Background()
	key := memory.DiscordChannel("c1")
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	turn := func(i int, replyTo string) {
		t.Helper()
		at := t0.Add(time.Duration(i) * time.Minute)
		if err := m.Record(ctx, key, memory.Turn{Source: "discord", GuildID: "g1", ChannelID: "c1",
			User:  memory.MessageRecord{AuthorName: "たろう", Content: fmt.Sprintf("質問%d", i), PlatformMessageID: fmt.Sprintf("u%d", i), ReplyTo: replyTo, At: at},
			Reply: memory.MessageRecord{Content: fmt.Sprintf("答え%d", i), At: at.Add(time.Second)},
		}); err != nil {
			t.Fatal(err)
		}
		if err := m.RecordReplyIDs(ctx, key, fmt.Sprintf("u%d", i), []string{fmt.Sprintf("a%d", i), fmt.Sprintf("a%d-2", i)}); err != nil {
			t.Fatal(err)
		}
	}
	turn(1, "x0")   // replied to a message that is not stored
	turn(2, "a1-2") // replied to the second part of answer 1
	turn(3, "u3")   // a message replying to itself stops the walk
	for _, tc := range []struct {
		from string
		max  int
		want string
	}{
		{"a2", 10, "答え2 質問2 答え1 質問1 →x0"},
		{"a2", 3, "答え2 質問2 答え1 →u1"},
		{"u3", 10, "質問3 →u3"},
		{"a3", 10, "答え3 質問3 →u3"},
		{"nope", 10, ""},
	} {
		t.Run(tc.from, func(t *testing.T) {
			chain, err := m.StoredReplyChain(ctx, key, tc.from, tc.max)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range chain {
				got = append(got, c.Content)
			}
			if len(chain) > 0 {
				got = append(got, "→"+chain[len(chain)-1].ReplyTo)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("chain = %q, want %q", strings.Join(got, " "), tc.want)
			}
			for _, c := range chain {
				if c.FromBot != strings.HasPrefix(c.Content, "答え") {
					t.Errorf("%+v: FromBot wrong", c)
				}
			}
		})
	}
	if chain, _ := m.StoredReplyChain(ctx, memory.DiscordChannel("c2"), "a2", 10); len(chain) != 0 {
		t.Errorf("another channel's messages were followed: %+v", chain)
	}
}
