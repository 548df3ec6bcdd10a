package bot

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
)

// Mentions are answered once, by one process, even across a database
// outage or a gateway hand-over:
//   - a turn claims its message before it is answered (Claims); a message
//     another process claimed is left to it;
//   - while the claim cannot be made (the database is away) the turn waits,
//     up to OutageWait after the message was sent, and is then told once
//     that it cannot be answered;
//   - the process that takes the gateway reads the channels' history since
//     the gateway was last held (CatchUp) and answers the mentions no
//     gateway received, in order; older than OutageWait, they are told.
const (
	claimTimeout = 2 * time.Second  // one claim; the database may hang
	storeTimeout = 10 * time.Second // one write of a turn's records
	claimRetry   = time.Second      // how often a waiting turn tries again
	// catchUpReach bounds how far back a catch-up reads; catchUpChannels
	// (of conversations, and again of servers' channels with newer
	// messages) and catchUpMessages how much.
	catchUpReach    = 10 * time.Minute
	catchUpChannels = 100
	catchUpMessages = 50
	catchUpTimeout  = 15 * time.Second
	// droppedSlack is how long before a lost connection was noticed its
	// messages may have stopped coming.
	droppedSlack = 2 * time.Second
	seenMessages = 1024 // message ids remembered against redelivery
)

// databaseAwayReply tells a mention that waited OutageWait for the
// database; missedReply one sent while no process held the gateway.
const (
	databaseAwayReply = "データベースに接続できないため、お返事できませんでした。少し時間をおいて、もう一度話しかけてください。"
	missedReply       = "yorozu が止まっている間に届いたメッセージのため、お返事できませんでした。もう一度話しかけてください。"
)

// Claims records which process answers each mention. DatabaseClaims is
// the real one.
type Claims interface {
	// ClaimMention is false when another process answers messageID.
	ClaimMention(ctx context.Context, messageID string) (bool, error)
	// RecentChannels are the channels with conversations, newest first.
	RecentChannels(ctx context.Context, limit int) ([]db.DiscordChannel, error)
}

// DatabaseClaims keeps claims in pool's database, for this process (each
// call makes a new claimant).
func DatabaseClaims(pool *pgxpool.Pool) Claims {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &dbClaims{pool: pool, owner: hex.EncodeToString(b[:])}
}

type dbClaims struct {
	pool  *pgxpool.Pool
	owner string
}

func (c *dbClaims) ClaimMention(ctx context.Context, messageID string) (bool, error) {
	return db.ClaimMention(ctx, c.pool, messageID, c.owner)
}

func (c *dbClaims) RecentChannels(ctx context.Context, limit int) ([]db.DiscordChannel, error) {
	return db.RecentDiscordChannels(ctx, c.pool, limit)
}

// seenSet remembers the last seenMessages message ids, so a message that
// comes both from the gateway and from a catch-up is queued once.
type seenSet struct {
	ids  map[string]bool
	ring []string
	next int
}

// add reports whether id is new, remembering it. b.mu is held.
func (s *seenSet) add(id string) bool {
	if s.ids == nil {
		s.ids, s.ring = map[string]bool{}, make([]string, seenMessages)
	}
	if s.ids[id] {
		return false
	}
	delete(s.ids, s.ring[s.next])
	s.ring[s.next] = id
	s.next = (s.next + 1) % len(s.ring)
	s.ids[id] = true
	return true
}

// firstSight reports whether the message id was not queued before.
func (b *Bot) firstSight(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seen.add(id)
}

// claimAttempt is a first try at claiming a turn's message, made beside
// the turn's context and model call so that it adds no time before the
// model is asked; the turn waits for it before anything is shown, a tool
// runs or the turn is kept (chat.Request.Admit).
type claimAttempt struct {
	done chan struct{}
	ok   bool  // this process answers
	err  error // the database did not answer: claim waits for it
}

// errUnclaimed ends a turn whose claimAttempt did not succeed, before
// anything of it was shown.
var errUnclaimed = errors.New("mention not claimed")

// wait waits for the attempt (or ctx) and reports whether it claimed the
// message.
func (a *claimAttempt) wait(ctx context.Context) bool {
	select {
	case <-a.done: // made, whether ctx ended too or not
		return a.err == nil && a.ok
	default:
	}
	select {
	case <-a.done:
		return a.err == nil && a.ok
	case <-ctx.Done():
		return false
	}
}

// result waits for the attempt and is its answer.
func (a *claimAttempt) result() (ok bool, err error) {
	<-a.done
	return a.ok, a.err
}

// tryClaim starts a claimAttempt for req; nil when req needs no claim.
func (b *Bot) tryClaim(req chat.Request) *claimAttempt {
	if b.opts.Claims == nil || req.MessageID == "" {
		return nil
	}
	a := &claimAttempt{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		ctx, cancel := context.WithTimeout(b.ctx, claimTimeout)
		defer cancel()
		a.ok, a.err = b.opts.Claims.ClaimMention(ctx, req.MessageID)
	}()
	return a
}

// claim makes this process the one that answers req, reporting whether it
// should; first is the attempt tryClaim started (nil: req needs no
// claim), whose answer is the first try. While the database is away the
// turn waits for it, until OutageWait after the message was sent; then the
// user is told, in the turn's notice when it has one. Another process's
// claim withdraws the notice: that process answers.
func (b *Bot) claim(req chat.Request, notice *sentMessage, first *claimAttempt) bool {
	if first == nil {
		return true
	}
	deadline := req.At.Add(b.opts.OutageWait)
	ok, err := first.result()
	for waited := false; ; waited = true {
		if waited {
			ctx, cancel := context.WithTimeout(b.ctx, claimTimeout)
			ok, err = b.opts.Claims.ClaimMention(ctx, req.MessageID)
			cancel()
		}
		switch {
		case err == nil && ok:
			if waited {
				b.log.Info("the database answers again: answering a mention that waited", "channel_id", req.ChannelID,
					"message_id", req.MessageID)
			}
			return true
		case err == nil:
			b.log.Info("mention answered by another process", "channel_id", req.ChannelID, "message_id", req.MessageID)
			b.withdraw(req.ChannelID, notice)
			return false
		case b.ctx.Err() != nil:
			return false
		}
		if !waited {
			// The outage itself is said once by the database's watch and
			// the gateway's hand-over; each waiting turn only at info.
			b.log.Info("cannot claim a mention (the database does not answer); it waits", "channel_id", req.ChannelID,
				"message_id", req.MessageID, "until", deadline, "err", err)
		}
		wait := min(claimRetry, time.Until(deadline))
		if wait <= 0 || !b.now().Before(deadline) {
			b.log.Info("mention not answered: the database stayed away", "channel_id", req.ChannelID,
				"message_id", req.MessageID)
			b.notice(b.ctx, req, notice, databaseAwayReply)
			return false
		}
		t := time.NewTimer(wait)
		select {
		case <-b.ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// withdraw deletes a waiting notice whose turn another process answers.
func (b *Bot) withdraw(channelID string, notice *sentMessage) {
	if notice == nil {
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, restTimeout)
	defer cancel()
	if err := b.session.ChannelMessageDelete(channelID, notice.id, discordgo.WithContext(ctx)); err != nil {
		b.log.Debug("delete a waiting notice", "channel_id", channelID, "err", err)
	}
}

// CatchUpNext makes the next connection catch up on the mentions sent
// since the gateway was last held (since), which no gateway received:
// before it handles any new message, it reads the recent history of the
// channels with conversations, and, as each server arrives after READY, of
// its every channel and thread whose last message is newer than since
// (yorozu need never have talked there), and queues the unanswered
// mentions in order;
// those older than OutageWait are told instead — away says why: true when
// the database was. A mention a reply of the bot refers to, or another
// process claimed, is left alone.
func (b *Bot) CatchUpNext(since time.Time, away bool) {
	if b.opts.Claims == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.missed = &missed{since: since, away: away}
}

// missed is a catch-up the next connection does.
type missed struct {
	since time.Time
	away  bool
}

// catchUp does the catch-up CatchUpNext asked for, if any, from the
// gateway's read loop (READY or RESUMED), so that messages arriving after
// it queue behind the ones caught up. A new session after a lost one (not
// resumed: Discord replays a resumed session's events, queued once by
// firstSight) catches up since the loss too.
//
// At READY the gateway's state knows the servers only by id (guilds): their
// channels come after it, each server's in its GUILD_CREATE. So READY reads
// the channels with conversations, and each of those servers is caught up
// when its GUILD_CREATE arrives (catchUpGuild).
func (b *Bot) catchUp(ctx context.Context, resumed bool, guilds []string) {
	b.mu.Lock()
	m, dropped := b.missed, b.dropped
	b.missed, b.dropped = nil, time.Time{}
	if !resumed {
		// A new session: the servers an older one waited for come again.
		// A resumed one gets the GUILD_CREATEs it had not yet replayed.
		b.pendingGuilds = nil
	}
	b.mu.Unlock()
	if !resumed && !dropped.IsZero() && b.opts.Claims != nil {
		since := dropped.Add(-droppedSlack)
		if m == nil {
			m = &missed{since: since}
		} else if since.Before(m.since) {
			m.since = since
		}
	}
	if m == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, catchUpTimeout)
	defer cancel()
	since := m.since
	if reach := b.now().Add(-catchUpReach); since.Before(reach) {
		since = reach
	}
	stale := missedReply
	if m.away {
		stale = databaseAwayReply
	}
	g := &guildCatchUp{since: since, stale: stale, read: map[string]bool{}, budget: catchUpChannels,
		guilds: map[string]bool{}, until: b.now().Add(catchUpGuildWait)}
	answered, told := 0, 0
	for _, ch := range b.catchUpChannels(ctx, since) {
		a, t := b.catchUpChannel(ctx, ch, since, stale)
		answered, told = answered+a, told+t
		g.read[ch.ChannelID] = true
	}
	if answered+told > 0 {
		b.log.Info("caught up on mentions sent while no gateway was held", "since", since,
			"answered", answered, "told", told)
	}
	if resumed {
		return
	}
	for _, id := range guilds {
		g.guilds[id] = true
	}
	if len(g.guilds) > 0 {
		b.mu.Lock()
		b.pendingGuilds = g
		b.mu.Unlock()
	}
}

// guildCatchUp is the part of a catch-up that waits for READY's servers to
// arrive with their channels. Guarded by Bot.mu.
type guildCatchUp struct {
	since time.Time
	stale string
	// guilds are READY's servers not arrived yet; until is when one is no
	// longer waited for (a server in an outage arrives much later, if at
	// all, and a catch-up then would answer stale mentions as fresh).
	guilds map[string]bool
	until  time.Time
	read   map[string]bool // channels read already, at READY or in a server
	budget int             // how many more channels may be read
}

// catchUpGuildWait is how long after READY its servers' GUILD_CREATEs are
// caught up on.
const catchUpGuildWait = time.Minute

// catchUpGuild catches up on server g, just arrived with its channels,
// when the catch-up of the last READY waits for it: the channels and
// threads whose last message is newer than the catch-up's since are read,
// newest first and at most as many as the budget left, except those read
// already. The others cannot hold a missed mention, so a server of
// hundreds of quiet channels costs no reads.
func (b *Bot) catchUpGuild(ctx context.Context, g *discordgo.Guild) {
	if g == nil || g.Unavailable {
		return // in an outage: it comes again with its channels
	}
	b.mu.Lock()
	p := b.pendingGuilds
	waited := p != nil && p.guilds[g.ID]
	if waited {
		delete(p.guilds, g.ID)
		if len(p.guilds) == 0 {
			b.pendingGuilds = nil
		}
	}
	b.mu.Unlock()
	if !waited || b.now().After(p.until) {
		return
	}
	type recent struct {
		ch   db.DiscordChannel
		last uint64 // the last message's id: snowflakes grow with time
	}
	var chs []recent
	for _, c := range slices.Concat(g.Channels, g.Threads) {
		if c == nil || c.LastMessageID == "" {
			continue
		}
		at, err := discordgo.SnowflakeTimestamp(c.LastMessageID)
		last, perr := strconv.ParseUint(c.LastMessageID, 10, 64)
		if err != nil || perr != nil || !at.After(p.since) {
			continue
		}
		chs = append(chs, recent{db.DiscordChannel{GuildID: g.ID, ChannelID: c.ID}, last})
	}
	slices.SortFunc(chs, func(a, b recent) int { return cmp.Compare(b.last, a.last) })
	ctx, cancel := context.WithTimeout(ctx, catchUpTimeout)
	defer cancel()
	answered, told, skipped := 0, 0, 0
	for _, c := range chs {
		b.mu.Lock()
		read, left := p.read[c.ch.ChannelID], p.budget > 0
		if !read && left {
			p.read[c.ch.ChannelID] = true
			p.budget--
		}
		b.mu.Unlock()
		switch {
		case read:
			continue
		case !left:
			skipped++
			continue
		}
		a, t := b.catchUpChannel(ctx, c.ch, p.since, p.stale)
		answered, told = answered+a, told+t
	}
	if skipped > 0 {
		b.log.Warn("catch-up: too many channels with new messages; the oldest are not read", "guild_id", g.ID,
			"skipped", skipped, "read_at_most", catchUpChannels)
	}
	if answered+told > 0 {
		b.log.Info("caught up on mentions sent while no gateway was held", "guild_id", g.ID, "since", p.since,
			"answered", answered, "told", told)
	}
}

// catchUpChannels are the channels a catch-up reads first: those with
// conversations, and those the gateway's state knows to have messages
// newer than since (after RESUMED; at READY it knows none yet).
func (b *Bot) catchUpChannels(ctx context.Context, since time.Time) []db.DiscordChannel {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	chs, err := b.opts.Claims.RecentChannels(ctx, catchUpChannels)
	if err != nil {
		b.log.Warn("catch-up: channels with conversations unknown; reading only those Discord reports", "err", err)
	}
	known := map[string]bool{}
	for _, c := range chs {
		known[c.ChannelID] = true
	}
	b.session.State.RLock()
	defer b.session.State.RUnlock()
	for _, g := range b.session.State.Guilds {
		for _, c := range slices.Concat(g.Channels, g.Threads) {
			if c == nil || known[c.ID] || c.LastMessageID == "" {
				continue
			}
			if at, err := discordgo.SnowflakeTimestamp(c.LastMessageID); err == nil && at.After(since) {
				chs = append(chs, db.DiscordChannel{GuildID: g.ID, ChannelID: c.ID})
				known[c.ID] = true
			}
		}
	}
	return chs
}

// catchUpChannel queues the unanswered mentions of one channel sent after
// since, oldest first, and tells those older than OutageWait stale.
func (b *Bot) catchUpChannel(ctx context.Context, ch db.DiscordChannel, since time.Time, stale string) (answered, told int) {
	rctx, cancel := context.WithTimeout(ctx, restTimeout)
	msgs, err := b.session.ChannelMessages(ch.ChannelID, catchUpMessages, "", "", "", discordgo.WithContext(rctx))
	cancel()
	if err != nil {
		b.log.Debug("catch-up: read channel history", "channel_id", ch.ChannelID, "err", err)
		return 0, 0
	}
	if b.talk.NeedsHistory(ch.ChannelID) { // read already: the talk need not read it again
		b.fillTalk(ch.ChannelID, msgs)
	}
	botID := b.UserID()
	replied := map[string]bool{}
	for _, m := range msgs {
		if m.Author != nil && m.Author.ID == botID && m.MessageReference != nil {
			replied[m.MessageReference.MessageID] = true
		}
	}
	slices.Reverse(msgs) // Discord answers newest first
	for _, m := range msgs {
		if !m.Timestamp.After(since) || replied[m.ID] {
			continue
		}
		m.GuildID = ch.GuildID // history's messages carry no guild
		req, ok := toRequest(m, botID, b.listenResolved(ctx, ch.ChannelID), b.now())
		if req, ok = b.accept(req, ok, m); !ok {
			continue
		}
		if b.now().Sub(req.At) <= b.opts.OutageWait {
			b.log.Info("catch-up: answering a mention no gateway received", slog.String("channel_id", req.ChannelID),
				slog.String("message_id", req.MessageID))
			b.admitAny(req)
			answered++
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, claimTimeout)
		mine, err := b.opts.Claims.ClaimMention(cctx, req.MessageID)
		cancel()
		if err != nil || !mine {
			continue
		}
		b.goNotice(req, stale)
		told++
	}
	return answered, told
}
