package bot

import (
	"context"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/db"
)

// Channel modes (db.ModeMention, db.ModeFree, db.ModeThread) decide which
// messages of a channel are answered. They are kept in memory, so that the
// gateway loop decides without a query: loaded on READY, reloaded every
// ModeRefresh, and changed at once by SetChannelMode.

// ChannelModes lists the channels with a mode of their own; the app's
// store adapter satisfies it over db.ChannelModes.
type ChannelModes interface {
	ChannelModes(ctx context.Context) ([]db.ChannelMode, error)
}

// modesTimeout bounds one load of the modes.
const modesTimeout = 5 * time.Second

// listen is how a message's channel is listened to.
type listen int

const (
	listenMention    listen = iota // mentions and replies to the bot
	listenFree                     // every message not meant for others
	listenOpenThread               // mentions, each answered in a thread of its own
)

// SetChannelMode puts mode ("" for none: the parent's, else mention) in
// force for channelID at once; /channel mode and the admin page call it
// after storing it.
func (b *Bot) SetChannelMode(channelID, mode string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if mode == "" {
		delete(b.modes, channelID)
		return
	}
	if b.modes == nil {
		b.modes = map[string]string{}
	}
	b.modes[channelID] = mode
}

// loadModes replaces the modes in memory with the stored ones; on failure
// the ones known stay (logged).
func (b *Bot) loadModes(ctx context.Context) {
	if b.opts.Modes == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, modesTimeout)
	defer cancel()
	ms, err := b.opts.Modes.ChannelModes(ctx)
	if err != nil {
		b.log.Warn("channel modes not loaded: the last known stay in force", "err", err)
		return
	}
	modes := make(map[string]string, len(ms))
	for _, m := range ms {
		modes[m.ChannelID] = m.Mode
	}
	b.mu.Lock()
	b.modes = modes
	b.mu.Unlock()
}

// refreshModes reloads the modes every ModeRefresh until ctx ends, so a
// change made by another process (the admin page elsewhere) applies here.
func (b *Bot) refreshModes(ctx context.Context) {
	defer b.loops.Done()
	if b.opts.Modes == nil {
		return
	}
	t := time.NewTicker(b.opts.ModeRefresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b.loadModes(ctx)
		}
	}
}

// listenIn is how channelID is listened to: its own mode, else (a thread)
// its parent's, where a thread of a thread channel is answered freely.
// It asks only memory and the gateway's state: no request is made. known
// is false when channelID might be a thread of a channel with a mode but
// neither knows (listenResolved asks Discord).
func (b *Bot) listenIn(channelID string) (how listen, known bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.modes) == 0 {
		return listenMention, true
	}
	parent, isKnown := b.knownThreadLocked(channelID)
	if mode, ok := b.modes[channelID]; ok {
		if mode == db.ModeThread && parent != "" {
			return listenFree, true // a thread's own thread mode: answered there freely
		}
		return modeListen(mode), true
	}
	if parent == "" {
		return listenMention, isKnown
	}
	switch b.modes[parent] {
	case db.ModeFree, db.ModeThread:
		return listenFree, true
	}
	return listenMention, true
}

// listenResolved is listenIn, asking Discord whether channelID is a thread
// when nothing here knows (once per channel: the answer is remembered).
func (b *Bot) listenResolved(ctx context.Context, channelID string) listen {
	how, known := b.listenIn(channelID)
	if known {
		return how
	}
	if _, err := b.ThreadParent(ctx, channelID); err != nil {
		b.log.Debug("channel unknown: answered by mention", "channel_id", channelID, "err", err)
		return how
	}
	how, _ = b.listenIn(channelID)
	return how
}

func modeListen(mode string) listen {
	switch mode {
	case db.ModeFree:
		return listenFree
	case db.ModeThread:
		return listenOpenThread
	}
	return listenMention
}

// knownThreadLocked is the parent of channelID when memory or the
// gateway's state knows it is a thread, else ""; known is false when
// neither knows the channel. b.mu is held.
func (b *Bot) knownThreadLocked(channelID string) (parent string, known bool) {
	if parent, ok := b.parents[channelID]; ok {
		return parent, true
	}
	if ch, err := b.session.State.Channel(channelID); err == nil && ch != nil {
		if ch.IsThread() {
			return ch.ParentID, true
		}
		return "", true
	}
	return "", false
}

// freeMessage reports whether m, in a channel answered without mentions,
// is for the bot: not one starting with // (people talking among
// themselves), nor one mentioning someone else but not the bot.
func freeMessage(m *discordgo.Message, botID string) bool {
	if strings.HasPrefix(strings.TrimSpace(m.Content), "//") {
		return false
	}
	if mentions(m, botID) {
		return true
	}
	for _, u := range m.Mentions {
		if u != nil && u.ID != botID {
			return false
		}
	}
	return len(m.MentionRoles) == 0 && !m.MentionEveryone
}
