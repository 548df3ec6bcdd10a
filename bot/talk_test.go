package bot

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/memory/talk"
)

func talkLines(ms []talk.Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Author+": "+m.Text)
	}
	return strings.Join(out, "\n")
}

// TestTalkHistory: a channel's talk from before the start is read from
// its history; where yorozu may not read the history, the talk holds what
// the gateway brought since and the mention is answered all the same.
func TestTalkHistory(t *testing.T) {
	tests := []struct {
		name     string
		deny     bool
		want     []string
		not      []string
		logNotes string
	}{
		{name: "history read", want: []string{"userold: 起動前の話", "usernew: 起動後の話"}},
		{name: "no Read Message History", deny: true, want: []string{"usernew: 起動後の話"}, not: []string{"起動前の話"},
			logNotes: "no Read Message History"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			say := func(srv *discordtest.Server, user, text string) {
				srv.SendMessage(&discordgo.Message{ChannelID: chanID, GuildID: guildID, Content: text,
					Author: &discordgo.User{ID: user, Username: "user" + user}})
			}
			h, logs := startFaulty(t, func(srv *discordtest.Server) {
				srv.AddChannel(chanID)
				say(srv, "old", "起動前の話")
				if tc.deny {
					srv.DenyBot(chanID, discordgo.PermissionReadMessageHistory)
				}
			}, nil)
			say(h.srv, "new", "起動後の話")
			h.mention(chanID, "1", "どう思う？")
			h.waitText(chanID, "了解です。")
			reqs := h.resp.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			got := talkLines(reqs[0].Talk)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("talk lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("talk holds %q:\n%s", n, got)
				}
			}
			if strings.Contains(got, "どう思う") {
				t.Errorf("the mention is repeated in the talk:\n%s", got)
			}
			if tc.logNotes != "" && strings.Count(logs.String(), tc.logNotes) != 1 {
				t.Errorf("the log notes %q %d times, want once:\n%s", tc.logNotes, strings.Count(logs.String(), tc.logNotes), logs.String())
			}
		})
	}
}

// TestTalkNotInDMs: a DM's turn is given no channel talk.
func TestTalkNotInDMs(t *testing.T) {
	h := start(t, nil)
	h.srv.SendMessage(&discordgo.Message{ChannelID: "dm1", Content: "最初のDM", Author: &discordgo.User{ID: "7", Username: "u7"}})
	h.waitText("dm1", "了解です。")
	h.srv.SendMessage(&discordgo.Message{ChannelID: "dm1", Content: "二つめのDM", Author: &discordgo.User{ID: "7", Username: "u7"}})
	h.waitText("dm1", "了解です。", "了解です。")
	for _, r := range h.resp.requests() {
		if len(r.Talk) > 0 {
			t.Errorf("a DM turn has talk: %+v", r.Talk)
		}
	}
}
