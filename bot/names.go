package bot

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
)

// NameStore keeps the names of servers, channels, threads and users, for the
// admin page to show instead of ids (db.SaveDiscordNames over a pool).
type NameStore interface {
	SaveNames(ctx context.Context, ns []db.DiscordName) error
}

// DatabaseNames is a NameStore over the discord_names table.
func DatabaseNames(pool *pgxpool.Pool) NameStore { return dbNames{pool} }

type dbNames struct{ pool *pgxpool.Pool }

func (d dbNames) SaveNames(ctx context.Context, ns []db.DiscordName) error {
	return db.SaveDiscordNames(ctx, d.pool, ns)
}

// nameWriteTimeout bounds one save of the names that changed. After a
// failed one the writer pauses for Options.RetryMin, so an outage is not
// hammered.
const nameWriteTimeout = 10 * time.Second

// nameBook is what the gateway said things are called. note runs on the
// gateway's goroutine for every message: it only compares with the names
// already known and, when one changed (or is new), queues it for the
// writer. Nothing reaches the database while nothing changes.
type nameBook struct {
	mu      sync.Mutex
	known   map[nameKey]nameVal
	pending []db.DiscordName
	wake    chan struct{}
}

type nameKey struct{ kind, id, guild string }
type nameVal struct{ name, parent string }

func (nb *nameBook) note(n db.DiscordName) {
	if n.ID == "" || n.Name == "" {
		return
	}
	k, v := nameKey{n.Kind, n.ID, n.GuildID}, nameVal{n.Name, n.ParentID}
	nb.mu.Lock()
	if nb.known[k] == v {
		nb.mu.Unlock()
		return
	}
	nb.known[k] = v
	nb.pending = append(nb.pending, n)
	nb.mu.Unlock()
	signal(nb.wake)
}

// take empties the queue.
func (nb *nameBook) take() []db.DiscordName {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	ns := nb.pending
	nb.pending = nil
	return ns
}

// forget drops ns from what is known, so that the next time the gateway
// names them they are saved again (after a failed save).
func (nb *nameBook) forget(ns []db.DiscordName) {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	for _, n := range ns {
		k := nameKey{n.Kind, n.ID, n.GuildID}
		if nb.known[k] == (nameVal{n.Name, n.ParentID}) {
			delete(nb.known, k)
		}
	}
}

// followNames keeps store (Options.Names) up to date with what servers,
// channels, threads and users are called: from each server's GUILD_CREATE,
// the channel, thread and member events, and the author of every message
// and command. A background writer saves only what changed.
func (b *Bot) followNames(store NameStore) {
	nb := &nameBook{known: map[nameKey]nameVal{}, wake: make(chan struct{}, 1)}
	s := b.session
	on := func(event string, fn func()) {
		defer b.recoverEvent(event)
		fn()
	}
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildCreate) {
		on("names_guild_create", func() { noteGuild(nb, e.Guild) })
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildUpdate) {
		on("names_guild_update", func() { noteGuild(nb, e.Guild) })
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.ChannelCreate) {
		on("names_channel_create", func() { noteChannel(nb, "", e.Channel) })
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.ChannelUpdate) {
		on("names_channel_update", func() { noteChannel(nb, "", e.Channel) })
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.ThreadCreate) {
		on("names_thread_create", func() { noteChannel(nb, "", e.Channel) })
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.ThreadUpdate) {
		on("names_thread_update", func() { noteChannel(nb, "", e.Channel) })
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.ThreadListSync) {
		on("names_thread_list_sync", func() {
			for _, c := range e.Threads {
				noteChannel(nb, e.GuildID, c)
			}
		})
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildMemberAdd) {
		on("names_member_add", func() { noteMember(nb, e.GuildID, e.Member) })
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildMemberUpdate) {
		on("names_member_update", func() { noteMember(nb, e.GuildID, e.Member) })
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildMembersChunk) {
		on("names_members_chunk", func() {
			for _, m := range e.Members {
				noteMember(nb, e.GuildID, m)
			}
		})
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.MessageCreate) {
		on("names_message", func() { noteAuthor(nb, e.Message) })
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.InteractionCreate) {
		on("names_interaction", func() {
			if e.Interaction == nil {
				return
			}
			noteMember(nb, e.GuildID, e.Member)
			noteUser(nb, "", e.User)
		})
	})
	// Not one of b.loops, which Leave waits for: the names are written
	// while the process stands by too, until Stop.
	b.namesDone = make(chan struct{})
	go func() {
		defer close(b.namesDone)
		b.writeNames(nb, store)
	}()
}

// writeNames saves the names that changed as they come, until the bot
// stops; what is queued then is saved once more.
func (b *Bot) writeNames(nb *nameBook, store NameStore) {
	save := func(ctx context.Context) bool {
		ns := nb.take()
		if len(ns) == 0 {
			return true
		}
		ctx, cancel := context.WithTimeout(ctx, nameWriteTimeout)
		defer cancel()
		if err := store.SaveNames(ctx, ns); err != nil {
			nb.forget(ns)
			b.log.Warn("names of servers, channels and users not saved; the admin page shows ids for them until they are seen again",
				"names", len(ns), "err", err)
			return false
		}
		return true
	}
	for {
		select {
		case <-b.loopCtx.Done():
			save(context.WithoutCancel(b.loopCtx))
			return
		case <-nb.wake:
		}
		if !save(b.loopCtx) {
			select {
			case <-b.loopCtx.Done():
			case <-time.After(b.opts.RetryMin):
			}
		}
	}
}

func noteGuild(nb *nameBook, g *discordgo.Guild) {
	if g == nil || g.Unavailable {
		return
	}
	nb.note(db.DiscordName{Kind: db.NameGuild, ID: g.ID, Name: g.Name})
	for _, c := range g.Channels {
		noteChannel(nb, g.ID, c)
	}
	for _, c := range g.Threads {
		noteChannel(nb, g.ID, c)
	}
	for _, m := range g.Members {
		noteMember(nb, g.ID, m)
	}
}

// noteChannel notes a server's channel or thread (a DM has no name); a
// GUILD_CREATE's channels may leave their server (guildID) unsaid.
func noteChannel(nb *nameBook, guildID string, c *discordgo.Channel) {
	if c == nil {
		return
	}
	guildID = cmp.Or(c.GuildID, guildID)
	if guildID == "" {
		return
	}
	n := db.DiscordName{Kind: db.NameChannel, ID: c.ID, GuildID: guildID, Name: c.Name}
	if c.IsThread() {
		n.ParentID = c.ParentID // a channel's parent is its category: not kept
	}
	nb.note(n)
}

// noteMember notes a member's name in guildID (their nickname there, else
// their own) and their own name.
func noteMember(nb *nameBook, guildID string, m *discordgo.Member) {
	if m == nil || m.User == nil {
		return
	}
	if guildID != "" {
		nb.note(db.DiscordName{Kind: db.NameUser, ID: m.User.ID, GuildID: guildID, Name: m.DisplayName()})
	}
	noteUser(nb, "", m.User)
}

func noteUser(nb *nameBook, guildID string, u *discordgo.User) {
	if u == nil {
		return
	}
	nb.note(db.DiscordName{Kind: db.NameUser, ID: u.ID, GuildID: guildID, Name: u.DisplayName()})
}

// noteAuthor notes who wrote m (a webhook's name is no user's).
func noteAuthor(nb *nameBook, m *discordgo.Message) {
	if m == nil || m.Author == nil || m.WebhookID != "" {
		return
	}
	noteUser(nb, "", m.Author)
	if m.GuildID != "" {
		name := m.Author.DisplayName()
		if m.Member != nil && m.Member.Nick != "" {
			name = m.Member.Nick
		}
		nb.note(db.DiscordName{Kind: db.NameUser, ID: m.Author.ID, GuildID: m.GuildID, Name: name})
	}
}
