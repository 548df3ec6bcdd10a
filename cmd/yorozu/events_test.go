package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// manager is what a member who may manage events has in a channel.
const manager = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages | discordgo.PermissionManageEvents

// TestEventOfferNeedsConsent: 「明日19時からボドゲ会のイベント作って」
// shows the event as a preview; nothing is created until the asker, who
// may manage events, presses 作成; another member's press and the asker's
// press without Manage Events are refused; a double press creates one
// event, at the time read in the asker's time zone.
func TestEventOfferNeedsConsent(t *testing.T) {
	h := start(t, nil)
	h.discord.PutChannelInGuild(channelID, guildID)
	h.script(
		ollamatest.ToolCalls(ollamatest.Call("offer_event", map[string]any{
			"name": "ボドゲ会", "start": "明日の19時", "end": "22時", "place": "駅前のカフェ"})),
		ollamatest.Text("イベントを用意しました。"),
	)
	h.mention(aliceID, "明日19時から22時まで駅前のカフェでボドゲ会のイベント作って")
	offer, create := h.offerOf(t, 2, "📅 **ボドゲ会**")
	if !strings.Contains(offer.Content, "場所：駅前のカフェ") {
		t.Errorf("preview = %q, want the place", offer.Content)
	}
	if n := len(h.discord.ScheduledEvents(guildID)); n != 0 {
		t.Fatalf("%d events before the press", n)
	}

	r := h.response(t, h.discord.PressButton(channelID, offer.ID, create, &discordgo.User{ID: bobID}, manager).ID)
	if r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(r.Data.Content, "頼んだ本人だけ") {
		t.Errorf("bob's press = %+v, want an ephemeral refusal", r.Data)
	}
	r = h.response(t, h.discord.PressButton(channelID, offer.ID, create, &discordgo.User{ID: aliceID}, discordgo.PermissionViewChannel).ID)
	if r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(r.Data.Content, "「イベントの管理」") {
		t.Errorf("alice's press without Manage Events = %+v, want the permission named", r.Data)
	}
	if n := len(h.discord.ScheduledEvents(guildID)); n != 0 {
		t.Fatalf("%d events after refused presses", n)
	}

	var created int
	for _, p := range h.discord.DoublePress(channelID, offer.ID, create, &discordgo.User{ID: aliceID}, manager) {
		if r := h.response(t, p.ID); r.Type == discordgo.InteractionResponseUpdateMessage && r.Data != nil && strings.Contains(r.Data.Content, "✅ イベントを作成しました") {
			created++
		}
	}
	events := h.discord.ScheduledEvents(guildID)
	if created != 1 || len(events) != 1 {
		t.Fatalf("a double press: %d presses created, %d events, want 1 and 1", created, len(events))
	}
	e := events[0]
	tomorrow := time.Now().In(testZone(t)).AddDate(0, 0, 1)
	want := time.Date(tomorrow.Year(), tomorrow.Month(), tomorrow.Day(), 19, 0, 0, 0, testZone(t))
	if e.Name != "ボドゲ会" || e.EntityType != discordgo.GuildScheduledEventEntityTypeExternal || e.EntityMetadata.Location != "駅前のカフェ" ||
		!e.ScheduledStartTime.Equal(want) || e.ScheduledEndTime == nil || !e.ScheduledEndTime.Equal(want.Add(3*time.Hour)) {
		t.Errorf("event = %+v, want ボドゲ会 at 駅前のカフェ from %v to 22:00", e, want)
	}
}

// testZone is the harness's TIMEZONE, in which alice reads times.
func testZone(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestEventInVoiceChannelAndMissingPermission: an event in a voice
// channel is created there; when yorozu may not create events in the
// server, the press names the permission and nothing is created.
func TestEventInVoiceChannelAndMissingPermission(t *testing.T) {
	h := start(t, nil)
	h.discord.PutChannelInGuild(channelID, guildID)
	const voice = "200000000000000077"
	h.discord.AddVoiceChannel(voice, guildID, false)
	call := ollamatest.ToolCalls(ollamatest.Call("offer_event", map[string]any{"name": "作業会", "start": "明日の20時", "channel": "<#" + voice + ">"}))
	h.script(call, ollamatest.Text("どうぞ。"), call, ollamatest.Text("どうぞ。"))

	h.mention(aliceID, "明日20時から作業会のイベントをボイスで")
	offer, create := h.offerOf(t, 2, "📅 **作業会**")
	r := h.response(t, h.discord.PressButton(channelID, offer.ID, create, &discordgo.User{ID: aliceID}, manager).ID)
	if r.Data == nil || !strings.Contains(r.Data.Content, "✅ イベントを作成しました") {
		t.Fatalf("press = %+v", r.Data)
	}
	if ev := h.discord.ScheduledEvents(guildID); len(ev) != 1 || ev[0].ChannelID != voice || ev[0].EntityType != discordgo.GuildScheduledEventEntityTypeVoice {
		t.Fatalf("events = %+v, want one in the voice channel", ev)
	}

	h.discord.DenyBotInGuild(guildID, discordgo.PermissionCreateEvents|discordgo.PermissionManageEvents)
	h.mention(aliceID, "もう一回")
	offer, create = h.offerOf(t, 4, "📅 **作業会**")
	r = h.response(t, h.discord.PressButton(channelID, offer.ID, create, &discordgo.User{ID: aliceID}, manager).ID)
	if r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(r.Data.Content, "「イベントの作成」") {
		t.Errorf("press without Create Events = %+v, want the permission named", r.Data)
	}
	if n := len(h.discord.ScheduledEvents(guildID)); n != 1 {
		t.Errorf("%d events, want only the first", n)
	}
}

// TestEventBadInput: an event in the past, over a year ahead, ending
// before it starts, or with no place is refused with the reason and
// nothing is offered or created.
func TestEventBadInput(t *testing.T) {
	h := start(t, nil)
	h.discord.PutChannelInGuild(channelID, guildID)
	now := time.Now()
	h.refuseEach(t, "offer_event", []badInput{
		{"past", map[string]any{"name": "昨日の会", "start": now.Add(-2 * time.Hour).Format(time.RFC3339), "place": "公民館"}, "もう過ぎています"},
		{"over a year", map[string]any{"name": "遠い会", "start": now.AddDate(1, 1, 0).Format(time.RFC3339), "place": "公民館"}, "1年先まで"},
		{"end before start", map[string]any{"name": "逆の会", "start": now.Add(48 * time.Hour).Format(time.RFC3339), "end": now.Add(47 * time.Hour).Format(time.RFC3339), "place": "公民館"}, "より前です"},
		{"no place", map[string]any{"name": "どこかの会", "start": "明日の19時"}, "場所がありません"},
	})
	if n := len(h.discord.ScheduledEvents(guildID)); n != 0 {
		t.Errorf("%d events created from bad input", n)
	}
}

// TestEventOfferAfterDiscordFailure: when Discord fails the creation, the
// press says so and the offer stays open; pressing again creates one
// event — also when the failed call had made the event and only its answer
// was lost (a 502, which is not retried blindly), where the second press
// finds that event instead of making another.
func TestEventOfferAfterDiscordFailure(t *testing.T) {
	h := start(t, nil)
	h.discord.PutChannelInGuild(channelID, guildID)
	offer := func(name string) ollamatest.Reply {
		return ollamatest.ToolCalls(ollamatest.Call("offer_event", map[string]any{"name": name, "start": "明日の19時", "end": "21時", "place": "公民館"}))
	}
	h.script(offer("読書会"), ollamatest.Text("どうぞ。"), offer("映画会"), ollamatest.Text("どうぞ。"))
	events := func(name string) []discordgo.GuildScheduledEvent {
		var out []discordgo.GuildScheduledEvent
		for _, e := range h.discord.ScheduledEvents(guildID) {
			if e.Name == name {
				out = append(out, e)
			}
		}
		return out
	}
	press := func(msgID, create string) discordgo.InteractionResponse {
		return h.response(t, h.discord.PressButton(channelID, msgID, create, &discordgo.User{ID: aliceID}, manager).ID)
	}
	failed := func(r discordgo.InteractionResponse) bool {
		return r.Data != nil && r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 && strings.Contains(r.Data.Content, "もう一度押してください")
	}

	h.mention(aliceID, "明日19時から公民館で読書会のイベント作って")
	msg, create := h.offerOf(t, 2, "📅 **読書会**")
	h.discord.FailNext(http.MethodPost, "/guilds/"+guildID+"/scheduled-events", 1, http.StatusInternalServerError)
	if r := press(msg.ID, create); !failed(r) || len(events("読書会")) != 0 {
		t.Fatalf("press while Discord fails = %+v, %d events; want a failure to try again and none", r.Data, len(events("読書会")))
	}
	if r := press(msg.ID, create); r.Data == nil || !strings.Contains(r.Data.Content, "✅ イベントを作成しました") {
		t.Fatalf("the second press = %+v, want the event created", r.Data)
	}
	if n := len(events("読書会")); n != 1 {
		t.Errorf("%d events after a failure and a retry, want 1", n)
	}

	h.mention(aliceID, "明日19時から公民館で映画会のイベントも")
	msg, create = h.offerOf(t, 4, "📅 **映画会**")
	h.discord.LoseEventResponses(guildID, 1, discordtest.LossBadGateway)
	if r := press(msg.ID, create); !failed(r) {
		t.Fatalf("press whose answer is lost = %+v, want a failure to try again", r.Data)
	}
	made := events("映画会")
	if len(made) != 1 {
		t.Fatalf("%d events after the lost answer, want the 1 Discord made", len(made))
	}
	r := press(msg.ID, create)
	if link := "https://discord.com/events/" + guildID + "/" + made[0].ID; r.Data == nil || !strings.Contains(r.Data.Content, "✅ イベントを作成しました："+link) {
		t.Errorf("the second press = %+v, want the event made before (%s)", r.Data, link)
	}
	if n := len(events("映画会")); n != 1 {
		t.Errorf("%d events after a lost answer and a retry, want 1", n)
	}
}
