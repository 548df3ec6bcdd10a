package bot

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/db"
)

// fakeNames is a NameStore that keeps every save; failing makes saves fail.
type fakeNames struct {
	mu      sync.Mutex
	saves   [][]db.DiscordName
	failing bool
	changed chan struct{}
}

var _ NameStore = (*fakeNames)(nil)

func (f *fakeNames) SaveNames(_ context.Context, ns []db.DiscordName) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer signal(f.changed)
	if f.failing {
		return errors.New("database down")
	}
	f.saves = append(f.saves, append([]db.DiscordName(nil), ns...))
	return nil
}

// names is every name saved, last save winning, by "kind:id:guild".
func (f *fakeNames) names() (map[string]string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := map[string]string{}
	rows := 0
	for _, s := range f.saves {
		for _, n := range s {
			m[n.Kind+":"+n.ID+":"+n.GuildID] = n.Name
			rows++
		}
	}
	return m, rows
}

func (f *fakeNames) wait(t *testing.T, ctx context.Context, what string, cond func(map[string]string) bool) {
	t.Helper()
	for {
		if m, _ := f.names(); cond(m) {
			return
		}
		select {
		case <-ctx.Done():
			m, _ := f.names()
			t.Fatalf("waiting for %s: the names saved are %v", what, m)
		case <-f.changed:
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestNamesFollowTheGateway: the server's and its channels' names from
// GUILD_CREATE, a thread's from THREAD_CREATE, a member's nickname from
// their message, and a rename from CHANNEL_UPDATE are saved; messages that
// change no name save nothing; names a failed save lost are saved when seen
// again.
func TestNamesFollowTheGateway(t *testing.T) {
	t.Parallel()
	store := &fakeNames{changed: make(chan struct{}, 1)}
	h, _ := startFaulty(t, func(s *discordtest.Server) {
		s.SetGuilds(guildID)
		s.AddChannel(chanID)
		s.PutChannelInGuild(chanID, guildID)
		s.SetName(guildID, "ボドゲ部")
		s.SetName(chanID, "雑談")
	}, func(o *Options) { o.Names = store })
	store.wait(t, h.ctx, "the server and its channel", func(m map[string]string) bool {
		return m["guild:"+guildID+":"] == "ボドゲ部" && m["channel:"+chanID+":"+guildID] == "雑談"
	})

	h.srv.Dispatch("THREAD_CREATE", &discordgo.Channel{ID: "501", GuildID: guildID, ParentID: chanID,
		Type: discordgo.ChannelTypeGuildPublicThread, Name: "土曜の卓"})
	say := func(text string) {
		h.srv.SendMessage(&discordgo.Message{ChannelID: chanID, GuildID: guildID, Content: text,
			Author: &discordgo.User{ID: "41", Username: "alice", GlobalName: "Alice"},
			Member: &discordgo.Member{Nick: "アリス（GM）"}})
	}
	say("こんにちは")
	store.wait(t, h.ctx, "the thread and the author", func(m map[string]string) bool {
		return m["channel:501:"+guildID] == "土曜の卓" && m["user:41:"+guildID] == "アリス（GM）" && m["user:41:"] == "Alice"
	})
	_, rows := store.names()
	for range 20 {
		say("また来ました")
	}
	h.srv.Dispatch("CHANNEL_UPDATE", &discordgo.Channel{ID: chanID, GuildID: guildID, Type: discordgo.ChannelTypeGuildText, Name: "よもやま"})
	store.wait(t, h.ctx, "the rename", func(m map[string]string) bool { return m["channel:"+chanID+":"+guildID] == "よもやま" })
	if _, now := store.names(); now != rows+1 {
		t.Errorf("20 messages by a known author and a rename saved %d names, want the rename alone", now-rows)
	}

	// A save that fails forgets what it held: seen again, it is saved.
	store.mu.Lock()
	store.failing = true
	store.mu.Unlock()
	h.srv.Dispatch("GUILD_UPDATE", &discordgo.Guild{ID: guildID, Name: "ボドゲ部（本部）"})
	select {
	case <-store.changed:
	case <-h.ctx.Done():
		t.Fatal("the failing save never came")
	}
	store.mu.Lock()
	store.failing = false
	store.mu.Unlock()
	h.srv.Dispatch("GUILD_UPDATE", &discordgo.Guild{ID: guildID, Name: "ボドゲ部（本部）"})
	store.wait(t, h.ctx, "the server's new name after a failed save", func(m map[string]string) bool {
		return m["guild:"+guildID+":"] == "ボドゲ部（本部）"
	})

	// Handing the gateway over does not wait for the names writer, which
	// goes on until Stop.
	left := make(chan struct{})
	go func() {
		h.bot.Leave()
		close(left)
	}()
	select {
	case <-left:
	case <-h.ctx.Done():
		t.Fatal("Leave waits for the names writer")
	}
}

// BenchmarkNoteKnownAuthor is the names' cost on the gateway's goroutine
// for a message whose author and nickname are already known: the common
// case, a map lookup with nothing queued. Target: under 1 µs and no
// allocation per message.
func BenchmarkNoteKnownAuthor(b *testing.B) {
	nb := &nameBook{known: map[nameKey]nameVal{}, wake: make(chan struct{}, 1)}
	m := &discordgo.Message{GuildID: guildID, ChannelID: chanID,
		Author: &discordgo.User{ID: "41", Username: "alice", GlobalName: "Alice"}, Member: &discordgo.Member{Nick: "アリス（GM）"}}
	noteAuthor(nb, m)
	nb.take()
	b.ReportAllocs()
	for b.Loop() {
		noteAuthor(nb, m)
	}
	if len(nb.take()) != 0 {
		b.Fatal("a known author was queued again")
	}
}
