package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
)

// Reading a channel's history for summaries, and showing a slow command's
// progress on its deferred response.

// historyPage is the most messages one GET /channels/{id}/messages returns.
const historyPage = 100

// historyDeadline bounds reading a channel's history for one summary: five
// pages are a second or two, a rate-limited channel is given up on.
const historyDeadline = 30 * time.Second

var _ chat.MessageSource = (*Bot)(nil)

// ChannelMessages reads channelID's history from since up to until (zero:
// now), newest page first (before=), at most limit messages, and returns
// them oldest first; truncated is set when the period holds more. A
// channel yorozu may not read answers an error matching
// chat.ErrHistoryForbidden.
func (b *Bot) ChannelMessages(ctx context.Context, _, channelID string, since, until time.Time, limit int) ([]chat.ChannelMessage, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, historyDeadline)
	defer cancel()
	var newest []chat.ChannelMessage
	before := ""
	for {
		rctx, rcancel := context.WithTimeout(ctx, restTimeout)
		page, err := b.session.ChannelMessages(channelID, historyPage, before, "", "", discordgo.WithContext(rctx))
		rcancel()
		if err != nil {
			if forbidden(err) {
				return nil, false, fmt.Errorf("read history of channel %s: %w: %w", channelID, chat.ErrHistoryForbidden, err)
			}
			return nil, false, fmt.Errorf("read history of channel %s: %w", channelID, err)
		}
		for _, m := range page {
			if m.Timestamp.Before(since) {
				return reverse(newest), false, nil
			}
			if !until.IsZero() && !m.Timestamp.Before(until) {
				continue
			}
			if len(newest) == limit {
				return reverse(newest), true, nil
			}
			newest = append(newest, channelMessage(m))
		}
		if len(page) < historyPage {
			return reverse(newest), false, nil
		}
		before = page[len(page)-1].ID
	}
}

// MayRead reports whether userID may read channelID's history: a channel
// (or a thread of one) of guildID where the member has View Channel and
// Read Message History. /summary asks it of a channel the user named, so
// that nobody reads through yorozu what they could not read themselves.
func (b *Bot) MayRead(ctx context.Context, guildID, userID, channelID string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	ch, err := b.session.Channel(channelID, discordgo.WithContext(ctx))
	if err != nil {
		var rest *discordgo.RESTError
		if forbidden(err) || errors.As(err, &rest) && rest.Response != nil && rest.Response.StatusCode == http.StatusNotFound {
			return false, nil
		}
		return false, fmt.Errorf("read channel %s: %w", channelID, err)
	}
	if ch.GuildID != guildID || guildID == "" {
		return false, nil
	}
	if ch.IsThread() {
		if ch, err = b.session.Channel(ch.ParentID, discordgo.WithContext(ctx)); err != nil {
			return false, fmt.Errorf("read parent of thread %s: %w", channelID, err)
		}
	}
	perms, err := b.channelPermissions(ctx, ch, userID)
	if err != nil {
		return false, fmt.Errorf("permissions of user %s in channel %s: %w", userID, channelID, err)
	}
	const need = discordgo.PermissionViewChannel | discordgo.PermissionReadMessageHistory
	return perms&need == need, nil
}

// MayReadHistory reports whether yorozu itself may read channelID's
// history (View Channel and Read Message History), as MayRead does for a
// member.
func (b *Bot) MayReadHistory(ctx context.Context, guildID, channelID string) (bool, error) {
	self := b.UserID()
	if self == "" {
		return false, fmt.Errorf("read history of channel %s: not connected to Discord yet", channelID)
	}
	return b.MayRead(ctx, guildID, self, channelID)
}

// forbidden reports Discord's refusal to read a channel: 403, Missing
// Access (50001) or Missing Permissions (50013).
func forbidden(err error) bool {
	var rest *discordgo.RESTError
	if !errors.As(err, &rest) {
		return false
	}
	if rest.Response != nil && rest.Response.StatusCode == http.StatusForbidden {
		return true
	}
	return rest.Message != nil && (rest.Message.Code == discordgo.ErrCodeMissingAccess || rest.Message.Code == discordgo.ErrCodeMissingPermissions)
}

func reverse(ms []chat.ChannelMessage) []chat.ChannelMessage {
	for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
		ms[i], ms[j] = ms[j], ms[i]
	}
	return ms
}

// channelMessage is m as a summary reads it. A member who left keeps the
// name the message carries.
func channelMessage(m *discordgo.Message) chat.ChannelMessage {
	cm := chat.ChannelMessage{ID: m.ID, At: m.Timestamp, Text: m.Content, Embeds: len(m.Embeds), Bot: m.WebhookID != ""}
	if m.Author != nil {
		cm.Author = m.Author.GlobalName
		if cm.Author == "" {
			cm.Author = m.Author.Username
		}
		cm.Bot = cm.Bot || m.Author.Bot
	}
	for _, a := range m.Attachments {
		if a != nil {
			cm.Attachments = append(cm.Attachments, a.Filename)
		}
	}
	for _, s := range m.StickerItems {
		if s != nil {
			cm.Stickers = append(cm.Stickers, s.Name)
		}
	}
	return cm
}

// progress shows a slow command's progress (要約中… 3/8) by editing its
// deferred response: what is reported before the deferral shows once it
// is made, and nothing is shown after the reply is on its way.
type progress struct {
	s   *discordgo.Session
	i   *discordgo.InteractionCreate
	log *slog.Logger

	// mu is held across an edit, so that no progress edit lands after the
	// reply's.
	mu            sync.Mutex
	isDeferred    bool
	done          bool
	pending, last string
}

// report shows text, now if the response is deferred, else once it is.
func (p *progress) report(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.pending = text
	if p.isDeferred {
		p.showLocked()
	}
}

// deferred is called once the deferral stands.
func (p *progress) deferred() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isDeferred = true
	if !p.done {
		p.showLocked()
	}
}

// finish stops the progress: the reply comes next.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
}

func (p *progress) showLocked() {
	text := p.pending
	if text == "" || text == p.last {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), restTimeout)
	defer cancel()
	if _, err := p.s.InteractionResponseEdit(p.i.Interaction, &discordgo.WebhookEdit{Content: &text, AllowedMentions: noMentions()},
		discordgo.WithContext(ctx)); err != nil {
		p.log.Warn("interaction progress", "interaction_id", p.i.ID, "err", err)
		return
	}
	p.last = text
}
