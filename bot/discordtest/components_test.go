package discordtest_test

import (
	"errors"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
)

// A message's buttons are checked, kept and returned; a press is answered
// once, with a type that fits it, and only then do its token's follow-ups
// and edits of @original work.
func TestButtonsAndPressCallbacks(t *testing.T) {
	srv := discordtest.New(t)
	s := session(t, srv)
	srv.AddChannel("1")
	row := func(bs ...discordgo.MessageComponent) []discordgo.MessageComponent {
		return []discordgo.MessageComponent{discordgo.ActionsRow{Components: bs}}
	}
	var rest *discordgo.RESTError
	dup := row(discordgo.Button{Label: "a", CustomID: "x"}, discordgo.Button{Label: "b", CustomID: "x"})
	if _, err := s.ChannelMessageSendComplex("1", &discordgo.MessageSend{Content: "c", Components: dup}); !errors.As(err, &rest) || rest.Message.Code != 50035 {
		t.Errorf("duplicate custom ids: err = %v, want 50035", err)
	}
	m, err := s.ChannelMessageSendComplex("1", &discordgo.MessageSend{Content: "c", Components: row(discordgo.Button{Label: "完了", CustomID: "rem:1"})})
	if err != nil || len(m.Components) != 1 {
		t.Fatalf("send = %+v, %v", m, err)
	}
	if got, err := s.ChannelMessage("1", m.ID); err != nil || len(got.Components) != 1 {
		t.Errorf("GET = %+v, %v, want the action row", got, err)
	}

	i := srv.PressButton("1", m.ID, "rem:1", &discordgo.User{ID: "42"}, 0)
	if i.Type != discordgo.InteractionMessageComponent || i.User == nil || i.Member != nil || i.MessageComponentData().CustomID != "rem:1" ||
		i.Message == nil || i.Message.ID != m.ID || len(i.Message.Components) != 1 {
		t.Errorf("press in a DM = %+v", i)
	}
	if _, err := s.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "早すぎ"}); !errors.As(err, &rest) || rest.Message.Code != 10015 {
		t.Errorf("follow-up before the answer: err = %v, want 10015", err)
	}
	if err := s.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}}}); !errors.As(err, &rest) || rest.Message.Code != 50035 {
		t.Errorf("autocomplete answer to a press: err = %v, want 50035", err)
	}
	if err := s.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}); err != nil {
		t.Fatal(err)
	}
	if err := s.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}); !errors.As(err, &rest) || rest.Message.Code != 40060 {
		t.Errorf("second answer: err = %v, want 40060", err)
	}
	done := "✅ 完了"
	if _, err := s.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &done, Components: &[]discordgo.MessageComponent{}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Messages("1")[0]; got.Content != done || len(got.Components) != 0 {
		t.Errorf("pressed message after the edit of @original = %+v", got)
	}
	if _, err := s.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "了解", Flags: discordgo.MessageFlagsEphemeral}); err != nil {
		t.Fatal(err)
	}
	if f := srv.Followups(i.ID); len(f) != 1 || f[0].Content != "了解" || len(srv.Messages("1")) != 1 {
		t.Errorf("follow-ups = %+v; an ephemeral one is in no channel", f)
	}
}
