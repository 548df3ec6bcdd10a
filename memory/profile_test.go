package memory_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/memory"
)

func TestCheckFact(t *testing.T) {
	for _, tc := range []struct {
		text string
		want error
	}{
		{"私はエビアレルギー", nil},
		{"エビアレルギー", nil},
		{"誕生日は3月3日", nil},
		{"私は田中さんの友達", nil},
		{"my birthday is March 3", nil},
		{"I'm allergic to shrimp", nil},
		{"", memory.ErrFactEmpty},
		{"　 ", memory.ErrFactEmpty},
		{strings.Repeat("あ", 5000), memory.ErrFactTooLong},
		{strings.Repeat("あ", memory.MaxFactChars), nil},
		{"田中さんはエビアレルギー", memory.ErrFactOfOthers},
		{"<@1234> の誕生日は5月", memory.ErrFactOfOthers},
		{"彼女の誕生日は5月1日", memory.ErrFactOfOthers},
		{"she is allergic to shrimp", memory.ErrFactOfOthers},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if err := memory.CheckFact(tc.text); !errors.Is(err, tc.want) {
				t.Errorf("CheckFact = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestProfile(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	m := f.memory(t, nil)
	key := memory.DiscordChannel("profile")

	kept, err := m.AddFact(ctx, g1, "u1", "ゆき", "私はエビアレルギー")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AddFact(ctx, g1, "u1", "ゆき", strings.Repeat("長", 5000)); !errors.Is(err, memory.ErrFactTooLong) {
		t.Errorf("a 5,000-character fact: err = %v, want ErrFactTooLong", err)
	}
	if _, err := m.AddFact(ctx, g1, "u1", "ゆき", "田中さんは猫アレルギー"); !errors.Is(err, memory.ErrFactOfOthers) {
		t.Errorf("a fact about someone else: err = %v, want ErrFactOfOthers", err)
	}
	if _, err := m.AddFact(ctx, "guild:other", "u1", "ゆき", "別のサーバーでの話"); err != nil {
		t.Fatal(err)
	}
	facts, err := m.Facts(ctx, g1, "u1")
	if err != nil || len(facts) != 1 || facts[0].Content != "私はエビアレルギー" {
		t.Fatalf("facts = %+v (%v), want only the kept one: refused ones leave nothing", facts, err)
	}

	profile := func(speaker string) string {
		t.Helper()
		msgs, err := m.Context(ctx, key, g1, "今夜の夕飯なにがいい？", memory.WithSpeaker(speaker, "ゆき"))
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range msgs {
			if strings.HasPrefix(msg.Content, "## ゆきについて") {
				return msg.Content
			}
		}
		return ""
	}
	if got := profile("u1"); !strings.Contains(got, "私はエビアレルギー") || strings.Contains(got, "別のサーバー") {
		t.Errorf("the speaker's facts in this space should be in the context:\n%s", got)
	}
	if got := profile("u2"); got != "" {
		t.Errorf("another member's turn has u1's facts:\n%s", got)
	}

	for i := range memory.MaxFacts - 1 {
		if _, err := m.AddFact(ctx, g1, "u1", "ゆき", fmt.Sprintf("好きな数字は%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.AddFact(ctx, g1, "u1", "ゆき", "31個目"); !errors.Is(err, memory.ErrTooManyFacts) {
		t.Errorf("fact 31: err = %v, want ErrTooManyFacts", err)
	}
	// A small share: 30 facts do not crowd out the conversation.
	if got := profile("u1"); memory.EstimateTokens(got) > int(memory.ProfileShare*float64(memory.DefaultTokenBudget))+10 {
		t.Errorf("the facts take %d tokens, more than their share", memory.EstimateTokens(got))
	}
	if err := m.ForgetFact(ctx, g1, "u2", kept.ID); err == nil {
		t.Error("another member forgot u1's fact")
	}
	if n, err := m.ForgetFacts(ctx, g1, "u1"); err != nil || n != memory.MaxFacts {
		t.Errorf("forget all = %d, %v; want %d", n, err, memory.MaxFacts)
	}
	if got := profile("u1"); got != "" {
		t.Errorf("forgotten facts still in the context:\n%s", got)
	}
}
