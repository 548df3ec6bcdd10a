package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestMemoryCommands(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	mem := memory.New(pool, memory.Options{Location: time.UTC})
	t.Cleanup(mem.Close)
	key := memory.DiscordChannel(chanID)
	for i, text := range []string{"猫の話", "犬の話"} {
		if err := mem.Record(ctx, key, memory.Turn{Source: "discord", GuildID: guildID, ChannelID: chanID,
			User:  memory.MessageRecord{AuthorName: "たろう", Content: text},
			Reply: memory.MessageRecord{Content: "はい" + string(rune('0'+i))}}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := db.SessionByKey(ctx, pool, string(key))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	if _, err := db.InsertMemory(ctx, pool, db.MemoryParams{SessionID: s.ID, Content: "たろうは猫が好き", MessageCount: 10,
		PeriodStart: at, PeriodEnd: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}

	h := start(t, func(o *Options) {})
	h.bot.AddMemoryCommands(mem, time.UTC)
	command := func(name string, opts ...*discordgo.ApplicationCommandInteractionDataOption) string {
		t.Helper()
		before := len(h.srv.InteractionResponses())
		h.srv.SendInteraction(&discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: chanID, GuildID: guildID,
			Token: "tok", Data: discordgo.ApplicationCommandInteractionData{Name: name, Options: opts}})
		if err := h.srv.WaitFor(h.ctx, func() bool { return len(h.srv.InteractionResponses()) > before }); err != nil {
			t.Fatal(err)
		}
		r := h.srv.InteractionResponses()[before].Response
		if r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
			t.Errorf("/%s reply is not ephemeral: %+v", name, r.Data)
			return ""
		}
		return r.Data.Content
	}
	confirm := func(v bool) *discordgo.ApplicationCommandInteractionDataOption {
		return &discordgo.ApplicationCommandInteractionDataOption{Name: "confirm", Type: discordgo.ApplicationCommandOptionBoolean, Value: v}
	}
	unarchived := func() int {
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM messages WHERE archived_at IS NULL").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	if got := command("memory"); !strings.Contains(got, "2026-11-30 06:00〜11-30 07:00 (10 件): たろうは猫が好き") {
		t.Errorf("/memory = %q", got)
	}
	if got := command("forget", confirm(false)); !strings.Contains(got, "取り消しました") || unarchived() != 4 {
		t.Errorf("/forget confirm:false = %q, %d unarchived; want nothing forgotten", got, unarchived())
	}
	if got := command("forget", confirm(true)); !strings.Contains(got, "4 件を忘れました") || unarchived() != 0 {
		t.Errorf("/forget confirm:true = %q, %d unarchived", got, unarchived())
	}
	msgs, err := mem.Context(ctx, key, "", "覚えてる？")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 3 || !strings.Contains(msgs[1].Content, "たろうは猫が好き") {
		t.Errorf("context after /forget: %+v; want the summary and no recent messages", msgs)
	}
	if got := command("forget", confirm(true)); !strings.Contains(got, "もう空です") {
		t.Errorf("second /forget = %q", got)
	}
	if got := command("memory"); !strings.Contains(got, "たろうは猫が好き") {
		t.Errorf("/memory after /forget = %q", got)
	}
}

func TestMemoryCommandsRegistered(t *testing.T) {
	h := start(t, nil)
	_ = h
	b, err := New(Options{Token: "t", APIBase: h.srv.URL(), Responder: &fakeResponder{}})
	if err != nil {
		t.Fatal(err)
	}
	b.AddMemoryCommands(nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	var names []string
	for _, c := range h.srv.Commands() {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "forget,memory" {
		t.Errorf("registered commands = %v", names)
	}
	if o := ForgetCommand.Options[0]; o.Name != "confirm" || !o.Required {
		t.Errorf("/forget confirm option = %+v; want required", o)
	}
}
