package talk_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/memory/talk"
)

var t0 = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

func msg(i int, text string) talk.Message {
	return talk.Message{ID: fmt.Sprint(i), Author: "U1", Text: text, At: t0.Add(time.Duration(i) * time.Minute)}
}

func ids(ms []talk.Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID+"="+m.Text)
	}
	return strings.Join(out, " ")
}

func all(b *talk.Buffer, ch string) string {
	return ids(b.Since(ch, time.Time{}, t0.Add(24*time.Hour), ""))
}

func TestBufferBounds(t *testing.T) {
	tests := []struct {
		name string
		opts talk.Options
		run  func(b *talk.Buffer)
		ch   string
		want string
	}{
		{
			name: "messages per channel: the oldest go",
			opts: talk.Options{Messages: 3},
			run: func(b *talk.Buffer) {
				for i := 1; i <= 5; i++ {
					b.Add("c", msg(i, "m"))
				}
			},
			ch: "c", want: "3=m 4=m 5=m",
		},
		{
			name: "bytes per channel: the oldest go",
			opts: talk.Options{Bytes: 10},
			run: func(b *talk.Buffer) {
				b.Add("c", msg(1, "aaaa"))
				b.Add("c", msg(2, "bbbb"))
				b.Add("c", msg(3, "cccc"))
			},
			ch: "c", want: "2=bbbb 3=cccc",
		},
		{
			name: "channels: the least recently active goes",
			opts: talk.Options{Channels: 2},
			run: func(b *talk.Buffer) {
				b.Add("a", msg(1, "a"))
				b.Add("b", msg(2, "b"))
				b.Add("a", msg(3, "a2")) // a is active again
				b.Add("c", msg(4, "c"))  // b is dropped
			},
			ch: "b", want: "",
		},
		{
			name: "channels: the active one stays",
			opts: talk.Options{Channels: 2},
			run: func(b *talk.Buffer) {
				b.Add("a", msg(1, "a"))
				b.Add("b", msg(2, "b"))
				b.Add("a", msg(3, "a2"))
				b.Add("c", msg(4, "c"))
			},
			ch: "a", want: "1=a 3=a2",
		},
		{
			name: "out of order arrivals are kept by time",
			run: func(b *talk.Buffer) {
				b.Add("c", msg(2, "two"))
				b.Add("c", msg(1, "one"))
			},
			ch: "c", want: "1=one 2=two",
		},
		{
			name: "an answer forgets what came before it",
			run: func(b *talk.Buffer) {
				b.Add("c", msg(1, "before"))
				b.Answered("c", t0.Add(90*time.Second))
				b.Add("c", msg(2, "after"))
				b.Add("c", msg(1, "late copy of before"))
			},
			ch: "c", want: "2=after",
		},
		{
			name: "edits and deletions follow",
			run: func(b *talk.Buffer) {
				b.Add("c", msg(1, "one"))
				b.Add("c", msg(2, "two"))
				b.Add("c", msg(3, "three"))
				b.Edit("c", "2", "TWO")
				b.Delete("c", "1", "3", "unknown")
				b.Edit("c", "9", "never kept")
			},
			ch: "c", want: "2=TWO",
		},
		{
			name: "history fills in without doubling what the gateway brought",
			run: func(b *talk.Buffer) {
				b.Add("c", msg(3, "edited on the gateway"))
				b.Fill("c", []talk.Message{msg(1, "before the answer"), msg(2, "two"), msg(3, "three")},
					[]time.Time{t0.Add(90 * time.Second)})
			},
			ch: "c", want: "2=two 3=edited on the gateway",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := talk.New(tc.opts)
			tc.run(b)
			if got := all(b, tc.ch); got != tc.want {
				t.Errorf("talk = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBufferSinceWindowAndSkip(t *testing.T) {
	b := talk.New(talk.Options{})
	b.Add("c", talk.Message{ID: "old", Text: "3時間前", At: t0.Add(-3 * time.Hour)})
	b.Add("c", talk.Message{ID: "new", Text: "1時間前", At: t0.Add(-time.Hour)})
	b.Add("c", talk.Message{ID: "q", Text: "質問", At: t0})
	b.Add("c", talk.Message{ID: "later", Text: "あとから", At: t0.Add(time.Minute)})
	got := ids(b.Since("c", t0.Add(-2*time.Hour), t0, "q"))
	if got != "new=1時間前" {
		t.Errorf("talk in the 2 hours before the question = %q, want only new", got)
	}
}

func TestBufferCutsLongMessages(t *testing.T) {
	b := talk.New(talk.Options{})
	b.Add("c", msg(1, strings.Repeat("あ", 4000)))
	got := b.Since("c", time.Time{}, t0.Add(time.Hour), "")
	if n := len([]rune(got[0].Text)); n > talk.MaxChars+10 || !strings.HasSuffix(got[0].Text, "…(以下略)") {
		t.Errorf("a 4,000-character message is kept as %d characters: %q…", n, string([]rune(got[0].Text)[:20]))
	}
}

func TestBufferHistoryOncePerChannel(t *testing.T) {
	b := talk.New(talk.Options{Channels: 1})
	if !b.NeedsHistory("a") || b.NeedsHistory("a") {
		t.Fatal("history of a channel is not asked for exactly once")
	}
	b.Add("b", msg(1, "b")) // a is dropped
	if !b.NeedsHistory("a") {
		t.Error("a channel dropped from the buffer is not read again")
	}
}
