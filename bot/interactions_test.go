package bot

import (
	"context"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/internal/logtest"
)

// A command's declaration reaches Discord with its localisations, option
// limits, choices and default member permissions.
func TestApplicationCommand(t *testing.T) {
	minID := 1.0
	ac := applicationCommand(commands.Command{
		Name: "remind", Description: "Reminders", DescriptionJA: "リマインダー", Visible: commands.ManageChannels,
		Options: []commands.Option{{
			Type: commands.Subcommand, Name: "cancel", Description: "Cancel",
			Options: []commands.Option{
				{Type: commands.Integer, Name: "id", Description: "Number", Required: true, MinValue: &minID},
				{Type: commands.String, Name: "scope", Description: "Where", MaxLength: 20, Autocomplete: true,
					Choices: []commands.Choice{{Name: "server", NameJA: "サーバー", Value: "server"}}},
			},
		}},
	})
	if ac.Name != "remind" || (*ac.DescriptionLocalizations)[discordgo.Japanese] != "リマインダー" {
		t.Errorf("command = %+v", ac)
	}
	if ac.DefaultMemberPermissions == nil || *ac.DefaultMemberPermissions != discordgo.PermissionManageChannels {
		t.Errorf("default member permissions = %v", ac.DefaultMemberPermissions)
	}
	sub := ac.Options[0]
	if sub.Type != discordgo.ApplicationCommandOptionSubCommand || len(sub.Options) != 2 {
		t.Fatalf("subcommand = %+v", sub)
	}
	id, scope := sub.Options[0], sub.Options[1]
	if id.Type != discordgo.ApplicationCommandOptionInteger || !id.Required || id.MinValue == nil || *id.MinValue != 1 {
		t.Errorf("id option = %+v", id)
	}
	if scope.MaxLength != 20 || !scope.Autocomplete || len(scope.Choices) != 1 || scope.Choices[0].NameLocalizations[discordgo.Japanese] != "サーバー" {
		t.Errorf("scope option = %+v", scope)
	}
	if plain := applicationCommand(commands.Command{Name: "stats", Description: "x"}); plain.DefaultMemberPermissions != nil || plain.DescriptionLocalizations != nil {
		t.Errorf("a command for everyone declares %+v", plain)
	}
}

// An interaction becomes a plain request: subcommand, values as sent
// (numbers as JSON decodes them), the option being typed, and what the
// user may do there.
func TestRequestFromInteraction(t *testing.T) {
	in := func(guild string, m *discordgo.Member, u *discordgo.User, opts ...*discordgo.ApplicationCommandInteractionDataOption) *discordgo.InteractionCreate {
		return &discordgo.InteractionCreate{Interaction: &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand,
			GuildID: guild, ChannelID: "c1", Member: m, User: u,
			Data: discordgo.ApplicationCommandInteractionData{Name: "remind", Options: opts}}}
	}
	member := func(perms int64) *discordgo.Member {
		return &discordgo.Member{User: &discordgo.User{ID: "u1"}, Permissions: perms}
	}
	sub := &discordgo.ApplicationCommandInteractionDataOption{Name: "cancel", Type: discordgo.ApplicationCommandOptionSubCommand,
		Options: []*discordgo.ApplicationCommandInteractionDataOption{
			{Name: "id", Type: discordgo.ApplicationCommandOptionInteger, Value: float64(7)},
			{Name: "name", Type: discordgo.ApplicationCommandOptionString, Value: "qw", Focused: true},
			nil,
		}}
	tests := []struct {
		name string
		i    *discordgo.InteractionCreate
		want commands.Request
	}{
		{"a member with a subcommand", in("g1", member(discordgo.PermissionManageMessages), nil, sub), commands.Request{
			Command: "remind", Subcommand: "cancel", Options: map[string]any{"id": int64(7), "name": "qw"}, Focused: "name",
			UserID: "u1", GuildID: "g1", ChannelID: "c1", Perms: commands.ManageMessages}},
		{"an administrator", in("g1", member(discordgo.PermissionAdministrator), nil), commands.Request{
			Command: "remind", Options: map[string]any{}, UserID: "u1", GuildID: "g1", ChannelID: "c1", Perms: commands.All}},
		{"Manage Channels", in("g1", member(discordgo.PermissionManageChannels), nil,
			&discordgo.ApplicationCommandInteractionDataOption{Name: "confirm", Type: discordgo.ApplicationCommandOptionBoolean, Value: true}),
			commands.Request{Command: "remind", Options: map[string]any{"confirm": true}, UserID: "u1", GuildID: "g1", ChannelID: "c1", Perms: commands.ManageChannels}},
		{"a DM's user", in("", nil, &discordgo.User{ID: "u2"}), commands.Request{
			Command: "remind", Options: map[string]any{}, UserID: "u2", ChannelID: "c1", Perms: commands.All}},
		{"a guild interaction without a member", in("g1", nil, nil), commands.Request{
			Command: "remind", Options: map[string]any{}, GuildID: "g1", ChannelID: "c1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := request(tc.i); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("request =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// A command slower than the deadline (a model list that hangs, a row lock
// held by a delivering post) is acknowledged before it returns with a
// deferred, ephemeral response, which Discord shows as 「考え中…」, and its
// reply then edits that response; a public reply goes to the channel. A
// quick command is answered at once. Discord refuses nothing: its
// deadline (3 s, here 600 ms) is kept.
func TestSlowCommandDeferred(t *testing.T) {
	t.Parallel()
	srv := discordtest.New(t)
	srv.AddChannel(chanID)
	srv.SetInteractionDeadline(600 * time.Millisecond)
	logs := &logtest.Buffer{}
	b, err := New(Options{Token: "t", APIBase: srv.URL(), Responder: &fakeResponder{},
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	b.deferAfter = 150 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// deferredSeen waits until the fake has interaction id acknowledged
	// with a deferral, as Discord would show it: an empty response.
	deferredSeen := func(id string) string {
		err := srv.WaitFor(ctx, func() bool {
			for _, r := range srv.InteractionResponses() {
				if r.InteractionID == id && r.Response.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource {
					return true
				}
			}
			return false
		})
		if err != nil {
			return "not deferred: " + err.Error()
		}
		if m, ok := srv.Original(id); !ok || m.Content != "" {
			return "no 考え中 state: " + m.Content
		}
		return ""
	}
	// A command of name answers reply; a slow one only once its
	// interaction (option "id") was deferred, so it cannot return before
	// the deadline; crash panics then.
	command := func(name string, reply commands.Reply, slow, crash bool) commands.Command {
		return commands.Command{Name: name, Description: name, Run: func(_ context.Context, req commands.Request) commands.Reply {
			if slow {
				if failed := deferredSeen(req.String("id")); failed != "" {
					return commands.Text(failed)
				}
			}
			if crash {
				panic("broken after the deferral")
			}
			return reply
		}}
	}
	b.AddCommand(command("quick", commands.Text("すぐ答えます。"), false, false))
	b.AddCommand(command("slow", commands.Text("モデルを設定しました。"), true, false))
	b.AddCommand(command("slowpublic", commands.Reply{Text: "みなさんへのお知らせです。", Public: true}, true, false))
	b.AddCommand(command("slowcrash", commands.Reply{}, true, true))
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer b.Stop()

	tests := []struct {
		name     string
		command  string
		deferred bool
		want     string // the response the user sees at last
		public   string // the follow-up in the channel, if any
	}{
		{"quick", "quick", false, "すぐ答えます。", ""},
		{"slow", "slow", true, "モデルを設定しました。", ""},
		{"slow with a public reply", "slowpublic", true, postedReply, "みなさんへのお知らせです。"},
		{"slow, then a panic", "slowcrash", true, genericErrorReply, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := srv.NewID()
			srv.SendInteraction(&discordgo.Interaction{ID: id, Type: discordgo.InteractionApplicationCommand,
				ChannelID: chanID, Token: "tok-" + id, Data: discordgo.ApplicationCommandInteractionData{Name: tc.command,
					Options: []*discordgo.ApplicationCommandInteractionDataOption{
						{Name: "id", Type: discordgo.ApplicationCommandOptionString, Value: id}}}})
			var original discordtest.Message
			err := srv.WaitFor(ctx, func() bool {
				var ok bool
				original, ok = srv.Original(id)
				return ok && original.Content != ""
			})
			if err != nil {
				t.Fatalf("no answer: %v\ncalls: %+v\nlog:\n%s", err, srv.Calls(), logs)
			}
			if original.Content != tc.want || original.Flags&discordgo.MessageFlagsEphemeral == 0 {
				t.Errorf("the user sees %q (flags %d), want %q, ephemeral", original.Content, original.Flags, tc.want)
			}
			var first discordgo.InteractionResponse
			for _, r := range srv.InteractionResponses() {
				if r.InteractionID == id {
					first = r.Response
				}
			}
			wantType := discordgo.InteractionResponseChannelMessageWithSource
			if tc.deferred {
				wantType = discordgo.InteractionResponseDeferredChannelMessageWithSource
			}
			if first.Type != wantType || first.Data == nil || first.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
				t.Errorf("first answer = type %d %+v, want type %d, ephemeral", first.Type, first.Data, wantType)
			}
			edits := callsTo(srv.Calls(), "PATCH", "/webhooks/"+srv.AppID()+"/tok-"+id)
			if tc.deferred != (len(edits) == 1) {
				t.Errorf("%d edits of the response, want one only when deferred", len(edits))
			}
			if tc.public != "" {
				srv.WaitFor(ctx, func() bool { return len(srv.Followups(id)) == 1 })
				f := srv.Followups(id)
				if len(f) != 1 || f[0].Content != tc.public || f[0].Flags&discordgo.MessageFlagsEphemeral != 0 {
					t.Errorf("follow-ups = %+v, want %q in the channel", f, tc.public)
				}
			}
		})
	}
	for _, c := range srv.Calls() {
		if c.Status == 404 {
			t.Errorf("Discord refused %s %s", c.Method, c.Path)
		}
	}
	if strings.Contains(logs.String(), "10062") {
		t.Errorf("the log has a refused interaction:\n%s", logs)
	}
}
