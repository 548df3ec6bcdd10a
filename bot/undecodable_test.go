package bot

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
)

// A write Discord answered 2xx is applied even when its answer cannot be
// decoded: a streamed answer of 2,641 characters shows once, and so does
// the next answer, which takes over its waiting notice with an edit.
func TestUndecodableAnswersShowTheAnswerOnce(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for utf8.RuneCountInString(b.String()) < 2641 {
		fmt.Fprintf(&b, "%d番目の文です。", b.Len())
	}
	text := string([]rune(b.String())[:2641])
	tests := []struct {
		name    string
		methods []string
	}{
		{"edits", []string{http.MethodPatch}},
		{"creates and edits", []string{http.MethodPost, http.MethodPatch}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, logs := startFaulty(t, func(s *discordtest.Server) { s.UndecodableAnswers(chanID, tc.methods...) }, nil)
			// shows reports whether the bot's messages read prefix, whatever
			// the parts.
			shows := func(prefix string) func() bool {
				return func() bool {
					var all strings.Builder
					for _, m := range h.srv.BotMessages(chanID) {
						all.WriteString(m.Content)
					}
					return all.String() == prefix
				}
			}
			h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
				if req.Text != "長く" {
					return say("答え:"+req.Text)(ctx, req, emit)
				}
				// Each chunk but the last is waited for, so the answer
				// streams through edits. (The test waits for the last; once
				// it has seen it, B's waiting notice may follow at once.)
				for r, sent := []rune(text), 0; sent < len(r); {
					n := min(len(r)-sent, 400)
					emit(llm.Text{Text: string(r[sent : sent+n])})
					sent += n
					if sent == len(r) {
						break
					}
					if err := h.srv.WaitFor(ctx, shows(string(r[:sent]))); err != nil {
						return fmt.Errorf("%d characters not shown: %w", sent, err)
					}
				}
				return emit(llm.Done{})
			}
			h.mention(chanID, "1", "長く")
			if err := h.srv.WaitFor(h.ctx, shows(text)); err != nil {
				t.Fatalf("the answer is not shown: %v; messages %+v", err, h.srv.BotMessages(chanID))
			}
			// B is answered once the first answer's turn is over, so its
			// answer means that turn has written everything it will.
			h.mention(chanID, "2", "B")
			msgs := h.waitBot(chanID, func(ms []discordtest.Message) bool {
				return slices.ContainsFunc(ms, func(m discordtest.Message) bool { return m.Content == "答え:B" })
			})
			want := append(splitMessage(text, maxMessageRunes), "答え:B")
			var got []string
			total := 0
			for _, m := range msgs {
				got = append(got, m.Content)
				total += utf8.RuneCountInString(m.Content)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d messages, %d characters visible; want %d messages, %d characters:\n%q",
					len(got), total, len(want), utf8.RuneCountInString(text)+utf8.RuneCountInString("答え:B"), got)
			}
			if edits := callsTo(h.srv.Calls(), http.MethodPatch, "/channels/"+chanID+"/messages/"); len(edits) == 0 {
				t.Error("the answer did not stream through edits")
			}
			if strings.Contains(logs.String(), "posting the rest as new messages") {
				t.Errorf("the bot gave up editing:\n%s", logs)
			}
		})
	}
}

// A scheduled post whose answer can be read only as far as the message id
// is posted once, and its id is known.
func TestPostMessageWithUndecodableAnswer(t *testing.T) {
	t.Parallel()
	h, _ := startFaulty(t, func(s *discordtest.Server) {
		s.AddChannel(chanID)
		s.UndecodableAnswers(chanID, http.MethodPost)
	}, nil)
	id, err := h.bot.PostMessage(h.ctx, chanID, "☀️ 今日の天気")
	if err != nil {
		t.Fatal(err)
	}
	msgs := h.srv.BotMessages(chanID)
	if len(msgs) != 1 || msgs[0].ID != id || msgs[0].Content != "☀️ 今日の天気" {
		t.Errorf("posts %+v; want one, id %s", msgs, id)
	}
	if posts := callsTo(h.srv.Calls(), http.MethodPost, "/channels/"+chanID+"/messages"); len(posts) != 1 {
		t.Errorf("%d POSTs; the first answer already named the message", len(posts))
	}
}
