package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// fakeMemory is a MemoryStore that remembers what it was asked.
type fakeMemory struct {
	summaries []db.Memory
	err       error
	forgot    []memory.SessionKey
	dropped   int64
}

var _ MemoryStore = (*fakeMemory)(nil)

func (f *fakeMemory) Forget(_ context.Context, key memory.SessionKey) (int64, error) {
	f.forgot = append(f.forgot, key)
	return 3, f.err
}

func (f *fakeMemory) ForgetSummaries(context.Context, memory.SessionKey) (int64, error) {
	f.dropped = int64(len(f.summaries))
	f.summaries = nil
	return f.dropped, f.err
}

func (f *fakeMemory) Summaries(context.Context, memory.SessionKey) ([]db.Memory, error) {
	return f.summaries, f.err
}

func TestForget(t *testing.T) {
	in := func(guild string, opts map[string]any) Request {
		return Request{Command: "forget", GuildID: guild, ChannelID: "c1", Options: opts}
	}
	tests := []struct {
		name    string
		req     Request
		err     error
		want    string
		session memory.SessionKey
	}{
		{"not confirmed", in("g1", map[string]any{"confirm": false}), nil, "取り消しました", ""},
		{"recent turns", in("g1", map[string]any{"confirm": true}), nil, "最近の会話 3 件を忘れました", memory.DiscordChannel("c1")},
		{"with summaries", in("g1", map[string]any{"confirm": true, "summaries": true}), nil, "3 件と長期記憶（要約）1 件", memory.DiscordChannel("c1")},
		{"in a DM", in("", map[string]any{"confirm": true}), nil, "3 件を忘れました", memory.DiscordDM("c1")},
		{"store fails", in("g1", map[string]any{"confirm": true}), errors.New("down"), "失敗しました", memory.DiscordChannel("c1")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := &fakeMemory{summaries: []db.Memory{{Content: "x"}}, err: tc.err}
			got := Forget(store, nil, quiet).Run(t.Context(), tc.req)
			if !strings.Contains(got.Text, tc.want) || got.Public {
				t.Errorf("reply = %+v, want a private one containing %q", got, tc.want)
			}
			if tc.session == "" && len(store.forgot) > 0 || tc.session != "" && (len(store.forgot) != 1 || store.forgot[0] != tc.session) {
				t.Errorf("forgot %v, want %q", store.forgot, tc.session)
			}
		})
	}
	if c := Forget(nil, nil, nil); c.Required("") != ManageMessages || c.Visible != ManageMessages || c.Refusal == "" {
		t.Errorf("/forget declares %+v: it must need Manage Messages and say so", c)
	}
}

// /memory shows the newest summaries that fit in one message, oldest
// first, and says how many older ones it left out.
func TestMemoryCommand(t *testing.T) {
	loc := time.FixedZone("JST", 9*3600)
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	var many []db.Memory
	for i := range 40 {
		many = append(many, db.Memory{Content: fmt.Sprintf("要約%02d %s", i, strings.Repeat("あ", 80)), MessageCount: 10,
			PeriodStart: at.Add(time.Duration(i) * time.Hour), PeriodEnd: at.Add(time.Duration(i)*time.Hour + time.Hour)})
	}
	run := func(store *fakeMemory) string {
		return Memory(store, loc, quiet).Run(t.Context(), Request{Command: "memory", GuildID: "g1", ChannelID: "c1"}).Text
	}
	if got := run(&fakeMemory{summaries: many[:1]}); !strings.Contains(got, "2026-11-30 15:00〜11-30 16:00（10 件）: 要約00") {
		t.Errorf("one summary = %q", got)
	}
	got := run(&fakeMemory{summaries: many})
	if n := utf8.RuneCountInString(got); n > maxReplyRunes {
		t.Errorf("reply is %d characters, over Discord's %d", n, maxReplyRunes)
	}
	if !strings.Contains(got, "要約39") || strings.Contains(got, "要約00") || !strings.Contains(got, "…ほか古い要約") {
		t.Errorf("40 summaries: want the newest, not the oldest, and a count of the rest:\n%s", got)
	}
	if strings.Index(got, "要約38") > strings.Index(got, "要約39") {
		t.Error("summaries are not oldest first")
	}
	if got := run(&fakeMemory{}); !strings.Contains(got, "まだありません") {
		t.Errorf("no summaries = %q", got)
	}
	if got := run(&fakeMemory{err: errors.New("down")}); !strings.Contains(got, "読み出せませんでした") {
		t.Errorf("store down = %q", got)
	}
}
