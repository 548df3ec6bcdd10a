package chat

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// fakeSource is a channel's messages in memory.
type fakeSource struct {
	msgs  []ChannelMessage
	err   error
	since time.Time
}

var _ MessageSource = (*fakeSource)(nil)

func (f *fakeSource) ChannelMessages(_ context.Context, _, _ string, since, until time.Time, limit int) ([]ChannelMessage, bool, error) {
	f.since = since
	if f.err != nil {
		return nil, false, f.err
	}
	var out []ChannelMessage
	for _, m := range f.msgs {
		if !m.At.Before(since) && (until.IsZero() || m.At.Before(until)) {
			out = append(out, m)
		}
	}
	if len(out) > limit {
		return out[len(out)-limit:], true, nil
	}
	return out, false, nil
}

// The model reads each message as something said, with its number: a
// message of only an attachment or a sticker, a bot's, an author the
// platform no longer names; a 4,000-character message cut.
func TestSummaryLines(t *testing.T) {
	at := time.Date(2026, 12, 7, 14, 5, 0, 0, time.UTC)
	s := &Summarizer{Location: time.UTC}
	got := s.lines([]ChannelMessage{
		{ID: "1", Author: "aki", At: at, Text: "集合は\n駅前で"},
		{ID: "2", Author: "ben", At: at, Attachments: []string{"map.png"}},
		{ID: "3", Author: "", At: at, Stickers: []string{"OK"}},
		{ID: "4", Author: "news", Bot: true, At: at, Embeds: 1},
		{ID: "5", Author: "aki", At: at},
		{ID: "6", Author: "aki", At: at, Text: strings.Repeat("あ", 4000)},
	})
	want := []string{
		"[1] 12/07 14:05 aki: 集合は 駅前で",
		"[2] 12/07 14:05 ben: （添付: map.png）",
		"[3] 12/07 14:05 （不明なメンバー）: （スタンプ: OK）",
		"[4] 12/07 14:05 news（bot）: （埋め込み1件）",
	}
	if len(got) != 5 {
		t.Fatalf("lines = %q", got)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("line %d = %q, want %q", i+1, got[i], w)
		}
	}
	if n := len([]rune(got[4])); n > summaryLineRunes+30 || !strings.HasPrefix(got[4], "[6] ") || !strings.HasSuffix(got[4], "…") {
		t.Errorf("the long message is %d characters: %.40q", n, got[4])
	}
}

// Numbers become jump links to the messages they name; a number naming no
// message, and a link the model wrote, are dropped.
func TestLinkCitations(t *testing.T) {
	msgs := []ChannelMessage{{ID: "111"}, {ID: "222"}, {ID: "333"}}
	tests := []struct{ name, in, guild, want string }{
		{"one", "- 集合は駅前 [2]", "900", "- 集合は駅前 [↗](https://discord.com/channels/900/500/222)"},
		{"several", "- 雨なら延期［1、3］", "900", "- 雨なら延期 [↗](https://discord.com/channels/900/500/111) [↗](https://discord.com/channels/900/500/333)"},
		{"adjacent", "- a [1][2]", "900", "- a [↗](https://discord.com/channels/900/500/111) [↗](https://discord.com/channels/900/500/222)"},
		{"out of range", "- b [4] [0]", "900", "- b"},
		{"a model's link", "- c (https://discord.com/channels/9/9/9) [3]", "900", "- c [↗](https://discord.com/channels/900/500/333)"},
		{"a DM", "- d [1]", "", "- d [↗](https://discord.com/channels/@me/500/111)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := linkCitations(tc.in, tc.guild, "500", msgs); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// A summary too long for two Discord messages is cut at a line and says
// so.
func TestSummaryFitsTwoMessages(t *testing.T) {
	long := strings.Repeat("- 項目 [↗](https://discord.com/channels/900/500/123456789012345678)\n", 120)
	got := fitReply(long)
	if n := len([]rune(got)); n > 4000 || !strings.HasSuffix(got, "省略しました）") || strings.Contains(got, "[↗](https://discord.com/channels/900/500/1234\n") {
		t.Errorf("%d characters, ends %q", n, got[len(got)-60:])
	}
}

// 「さっきの話まとめて」 is routed to the summary handler, which answers
// with the summary of the channel's recent talk; a chat on the admin
// page, which has no channel to read, goes to chat.
func TestSummaryRoute(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel("m", "completion")
	srv.Handle(func(req api.ChatRequest) ollamatest.Reply {
		return ollamatest.Text("**BBQ**\n- ✅ 決定: 駅前に集合 [2]")
	})
	now := time.Now()
	src := &fakeSource{msgs: []ChannelMessage{
		{ID: "10", Author: "aki", At: now.Add(-4 * time.Hour), Text: "昨日の話"},
		{ID: "11", Author: "aki", At: now.Add(-30 * time.Minute), Text: "BBQどこ集合にする？"},
		{ID: "12", Author: "ben", At: now.Add(-20 * time.Minute), Text: "駅前でいいよ"},
	}}
	var got string
	h := &SummaryHandler{Summarizer: &Summarizer{Source: src, Pipeline: llm.New(llm.Options{Client: srv.Client()}), Model: "m"},
		Chat: named("chat", &got)}
	r := NewRouter(named("chat", &got))
	if err := r.Add(RouteSummary, h); err != nil {
		t.Fatal(err)
	}
	var text string
	emit := func(ev llm.Event) error {
		if tx, ok := ev.(llm.Text); ok {
			text += tx.Text
		}
		return nil
	}
	err := r.Respond(context.Background(), Request{Source: "discord", GuildID: "900", ChannelID: "500", Text: "さっきの話まとめて", At: now}, emit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "[↗](https://discord.com/channels/900/500/12)") || !strings.Contains(text, "2件") {
		t.Errorf("answer = %q", text)
	}
	if read := srv.Requests()[0].Messages[1].Content; strings.Contains(read, "昨日の話") {
		t.Errorf("the model read talk older than the window:\n%s", read)
	}
	if err := r.Respond(context.Background(), Request{Source: "web", Text: "さっきの話まとめて", At: now}, emit); err != nil || got != "chat" {
		t.Errorf("a web chat's summary request went to %q (%v)", got, err)
	}
}

// Nothing said: no model call. A channel yorozu may not read: the
// permission named.
func TestSummaryWithoutModel(t *testing.T) {
	srv := ollamatest.New(t)
	s := &Summarizer{Source: &fakeSource{}, Pipeline: llm.New(llm.Options{Client: srv.Client()})}
	text, ok, err := s.Summarize(context.Background(), "900", "500", time.Now().Add(-time.Hour), time.Time{}, nil)
	if err != nil || ok || !strings.Contains(text, "メッセージがありません") || srv.ChatCalls() != 0 {
		t.Errorf("empty period: %q %v %v, %d model calls", text, ok, err, srv.ChatCalls())
	}
	s.Source = &fakeSource{err: fmt.Errorf("get: %w", ErrHistoryForbidden)}
	text, ok, err = s.Summarize(context.Background(), "900", "500", time.Now().Add(-time.Hour), time.Time{}, nil)
	if err != nil || ok || !strings.Contains(text, "「メッセージ履歴を読む」") {
		t.Errorf("forbidden: %q %v %v", text, ok, err)
	}
}

// instantPipeline answers at once, citing the first message it was given:
// the model's time left out.
type instantPipeline struct{ calls int }

func (p *instantPipeline) Run(_ context.Context, req llm.Request, _ func(llm.Event) error) (llm.Result, error) {
	p.calls++
	user := req.Messages[len(req.Messages)-1].Content
	first, _, _ := strings.Cut(user, "]")
	return llm.Result{Content: "- 話題 " + first + "]"}, nil
}

// BenchmarkSummaryDay is yorozu's own time for a day of 5,000 messages:
// reading them into numbered lines, cutting parts at the budget, and
// turning citations into links, with a model that answers at once.
func BenchmarkSummaryDay(b *testing.B) {
	start := time.Now().Add(-24 * time.Hour)
	msgs := make([]ChannelMessage, 5000)
	for i := range msgs {
		msgs[i] = ChannelMessage{ID: fmt.Sprint(1_300_000_000_000_000_000 + i), Author: fmt.Sprintf("member%d", i%40),
			At: start.Add(time.Duration(i) * 17 * time.Second), Text: fmt.Sprintf("今日のBBQの集合場所は駅前の広場がいいと思うけどどうかな、その%d", i)}
	}
	p := &instantPipeline{}
	s := &Summarizer{Source: &fakeSource{msgs: msgs}, Pipeline: p, Budget: 6000, MaxMessages: 5000}
	b.ReportAllocs()
	for b.Loop() {
		text, ok, err := s.Summarize(context.Background(), "900", "500", start, time.Time{}, nil)
		if err != nil || !ok || !strings.Contains(text, "5000件") {
			b.Fatalf("%v %v %.200q", ok, err, text)
		}
	}
	b.ReportMetric(float64(p.calls)/float64(b.N), "model-calls/op")
}
