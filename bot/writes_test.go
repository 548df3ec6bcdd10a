package bot

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
)

// writes are the REST calls that changed something on the fake Discord.
func writes(calls []discordtest.Call) []discordtest.Call {
	var out []discordtest.Call
	for _, c := range calls {
		if c.Method != http.MethodGet {
			out = append(out, c)
		}
	}
	return out
}

// An answer complete before its first message goes out is posted whole,
// with the 再生成 it ends with: the typing indicator and one message, no
// edit. (The lull is long here, so that a loaded machine cannot make the
// chunks seem apart.)
func TestFastAnswerGoesOutWhole(t *testing.T) {
	t.Parallel()
	h := startAnswerButtons(t, nil, func(o *Options) { o.FirstTextLull = time.Second })
	chunks := []string{"速い", "モデルの", "答えは", "一度に", "出ます。"}
	h.resp.script = say(chunks...)
	before := len(h.srv.Calls())
	h.mention(chanID, "7", "速く答えて")
	ms := h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) == 1 && slices.Equal(labels(ms[0]), []string{"再生成"})
	})
	if want := strings.Join(chunks, ""); ms[0].Content != want {
		t.Errorf("answer = %q, want %q", ms[0].Content, want)
	}
	var got []string
	for _, c := range writes(h.srv.Calls()[before:]) {
		got = append(got, c.Method+" "+c.Path)
	}
	want := []string{"POST /channels/" + chanID + "/typing", "POST /channels/" + chanID + "/messages"}
	if !slices.Equal(got, want) {
		t.Errorf("writes = %q, want %q", got, want)
	}
}

// A mention that comes while the answer before it is complete and only
// being kept waits for it without a 「順番待ち」 notice: it starts in
// moments, and the notice would be a write and an edit more.
func TestNoNoticeBehindAnAnswerBeingKept(t *testing.T) {
	t.Parallel()
	h := startAnswerButtons(t, nil)
	keeping := make(chan struct{})
	kept := make(chan struct{})
	n := 0
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		n++
		if err := say("答え"+req.Text)(ctx, req, emit); err != nil || n > 1 {
			return err
		}
		close(keeping)
		<-kept // the turn is being stored
		return nil
	}
	h.mention(chanID, "7", "一")
	<-keeping
	h.mention(chanID, "7", "二")
	// The second turn is in line behind the first before the first ends.
	h.waitQueued(chanID, 1)
	close(kept)
	ms := h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) == 2 && ms[1].Content == "答え二"
	})
	if ms[0].Content != "答え一" {
		t.Errorf("first answer = %q", ms[0].Content)
	}
	for _, c := range h.srv.Calls() {
		if strings.Contains(c.Content, "順番待ち") {
			t.Errorf("a waiting notice was posted: %s %s %q", c.Method, c.Path, c.Content)
		}
	}
}

// waitQueued waits until n turns wait in channel's line.
func (h *harness) waitQueued(channel string, n int) {
	h.t.Helper()
	for {
		h.bot.mu.Lock()
		q := h.bot.queues[channel]
		waiting := 0
		if q != nil {
			waiting = q.waiting()
		}
		h.bot.mu.Unlock()
		if waiting >= n {
			return
		}
		select {
		case <-h.ctx.Done():
			h.t.Fatalf("%d turns waiting in %s, want %d", waiting, channel, n)
		case <-time.After(time.Millisecond):
		}
	}
}
