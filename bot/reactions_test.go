package bot

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
)

// A turn that waits shows ⏳ on the user's message until it is answered; a
// failed turn gets ⚠️. Without Add Reactions nothing shows and the answers
// are as usual.
func TestStatusReactions(t *testing.T) {
	t.Parallel()
	for _, denied := range []bool{false, true} {
		h, logs := startFaulty(t, func(srv *discordtest.Server) {
			srv.AddChannel(chanID)
			if denied {
				srv.DenyBot(chanID, discordgo.PermissionAddReactions)
			}
		}, func(o *Options) { o.Reactions = true })
		release, started := make(chan struct{}), make(chan struct{})
		h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
			switch req.Text {
			case "先":
				close(started)
				<-release
			case "失敗":
				return errors.New("model exploded")
			}
			emit(llm.Text{Text: "答え " + req.Text})
			return emit(llm.Done{})
		}
		first := h.mention(chanID, "7", "先")
		<-started
		second := h.mention(chanID, "8", "後")
		third := h.mention(chanID, "9", "失敗")
		if !denied {
			if err := h.srv.WaitFor(h.ctx, func() bool {
				return slices.Equal(h.srv.Reactions(second.ID), []string{hourglassEmoji}) &&
					slices.Equal(h.srv.Reactions(third.ID), []string{hourglassEmoji})
			}); err != nil {
				t.Fatalf("waiting turns show %v and %v, want ⏳", h.srv.Reactions(second.ID), h.srv.Reactions(third.ID))
			}
		}
		close(release)
		h.waitBot(chanID, func(ms []discordtest.Message) bool {
			var got []string
			for _, m := range ms {
				got = append(got, m.Content)
			}
			return len(ms) == 3 && slices.Contains(got, "答え 先") && slices.Contains(got, "答え 後") && slices.Contains(got, genericErrorReply)
		})
		// The failure's ⚠️ is tried after its notice.
		if err := h.srv.WaitFor(h.ctx, func() bool { return slices.Contains(h.srv.ReactionLog(third.ID), "+"+failedEmoji) }); err != nil {
			t.Fatalf("denied=%v: no ⚠️ tried on the failed turn: %v", denied, h.srv.ReactionLog(third.ID))
		}
		want := map[string][]string{first.ID: nil, second.ID: nil, third.ID: {failedEmoji}}
		if denied {
			want[third.ID] = nil
		}
		err := h.srv.WaitFor(h.ctx, func() bool {
			for id, w := range want {
				if !slices.Equal(h.srv.Reactions(id), w) {
					return false
				}
			}
			return true
		})
		if err != nil {
			t.Errorf("denied=%v: reactions %v %v %v, want none, none, ⚠️", denied,
				h.srv.Reactions(first.ID), h.srv.Reactions(second.ID), h.srv.Reactions(third.ID))
		}
		if l := logs.String(); denied && containsLevel(l, "WARN", "reaction") {
			t.Errorf("a refused reaction was logged loudly:\n%s", l)
		}
	}
}

func containsLevel(logs, level, word string) bool {
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "level="+level) && strings.Contains(line, word) {
			return true
		}
	}
	return false
}
