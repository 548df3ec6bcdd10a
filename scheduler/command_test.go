package scheduler

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

func remindInteraction(user, channel string, sub *discordgo.ApplicationCommandInteractionDataOption) *discordgo.InteractionCreate {
	return &discordgo.InteractionCreate{Interaction: &discordgo.Interaction{
		ID: "i-" + sub.Name, Token: "tok", AppID: "app", Type: discordgo.InteractionApplicationCommand,
		ChannelID: channel, GuildID: "g1", Member: &discordgo.Member{User: &discordgo.User{ID: user}},
		Data: discordgo.ApplicationCommandInteractionData{Name: "remind", Options: []*discordgo.ApplicationCommandInteractionDataOption{sub}},
	}}
}

func TestRemindCommand(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	s := newScheduler(t, pool, fd.session, Options{})
	r := s.Reminders()
	due := time.Now().Add(time.Hour)
	mine := create(t, r, "u1", "c1", "燃えるゴミ", due)
	theirs := create(t, r, "u2", "c1", "other", due)

	list := &discordgo.ApplicationCommandInteractionDataOption{Name: "list", Type: discordgo.ApplicationCommandOptionSubCommand}
	cancel := func(id int64) *discordgo.ApplicationCommandInteractionDataOption {
		return &discordgo.ApplicationCommandInteractionDataOption{Name: "cancel", Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []*discordgo.ApplicationCommandInteractionDataOption{{Name: "id", Type: discordgo.ApplicationCommandOptionInteger, Value: float64(id)}}}
	}
	tests := []struct {
		name string
		sub  *discordgo.ApplicationCommandInteractionDataOption
		want string
	}{
		{"list", list, fmt.Sprintf("予定中のリマインダー:\n#%d <t:%d:F>（<t:%d:R>）燃えるゴミ", mine.ID, due.Unix(), due.Unix())},
		{"cancel someone else's", cancel(theirs.ID), fmt.Sprintf("#%d のリマインダーは見つかりません。", theirs.ID)},
		{"cancel own", cancel(mine.ID), fmt.Sprintf("#%d（<t:%d:F>）燃えるゴミ を取り消しました。", mine.ID, due.Unix())},
		{"cancel twice", cancel(mine.ID), fmt.Sprintf("#%d はすでに取り消されているか", mine.ID)},
		{"list empty", list, "このチャンネルで予定中のリマインダーはありません。"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r.HandleCommand(context.Background(), fd.session, remindInteraction("u1", "c1", tc.sub))
			rs := fd.InteractionResponses()
			if len(rs) != i+1 {
				t.Fatalf("%d responses, want %d", len(rs), i+1)
			}
			d := rs[i].Response.Data
			if d == nil || !strings.HasPrefix(d.Content, tc.want) || d.Flags&discordgo.MessageFlagsEphemeral == 0 {
				t.Errorf("response = %+v, want ephemeral %q", d, tc.want)
			}
		})
	}
	if cmd := RemindCommand(); cmd.Name != "remind" || len(cmd.Options) != 2 {
		t.Errorf("command = %+v", cmd)
	}
}
