package bot

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/memory"
)

// ReplyChains finds the stored part of a reply chain; *memory.Memory
// satisfies it.
type ReplyChains interface {
	StoredReplyChain(ctx context.Context, key memory.SessionKey, platformID string, max int) ([]memory.ChainMessage, error)
}

// chainTimeout bounds finding one turn's reply chain; past it the turn goes
// on with what was found.
const chainTimeout = 10 * time.Second

// maxParents bounds the remembered thread parents; past it they are
// forgotten and asked again.
const maxParents = 10_000

// referenced is the message m replies to, when the gateway sent it along,
// as the reply chain's first link (nil otherwise).
func referenced(m *discordgo.Message, botID string) []memory.ChainMessage {
	ref := m.ReferencedMessage
	if ref == nil || ref.Author == nil || ref.ID == "" || ref.ID != replyParent(m) {
		return nil
	}
	return []memory.ChainMessage{chainMessage(ref, botID)}
}

// replyParent is the id of the message m replies to in its own channel, or
// "": a forward from elsewhere is not a reply.
func replyParent(m *discordgo.Message) string {
	ref := m.MessageReference
	if ref == nil || ref.Type != discordgo.MessageReferenceTypeDefault || ref.MessageID == "" ||
		ref.ChannelID != "" && ref.ChannelID != m.ChannelID {
		return ""
	}
	return ref.MessageID
}

// chainMessage is a Discord message as a link of a reply chain. A post of
// one of yorozu's webhooks is marked as its own later, by replyChain.
func chainMessage(m *discordgo.Message, botID string) memory.ChainMessage {
	c := memory.ChainMessage{ID: m.ID, ReplyTo: replyParent(m), At: m.Timestamp, Webhook: m.WebhookID}
	if m.Author != nil {
		c.FromBot = m.Author.ID == botID
		c.AuthorName = displayName(m)
	}
	c.Content = m.Content
	if !c.FromBot {
		c.Content = nameMentions(stripMention(m.Content, botID), m.Mentions)
	}
	var files []string
	for _, a := range m.Attachments {
		if a != nil {
			files = append(files, a.Filename)
		}
	}
	if len(files) > 0 {
		c.Content = strings.TrimSpace(c.Content + "\n(添付: " + strings.Join(files, ", ") + ")")
	}
	return c
}

// prepare adds what answering req needs from Discord and the database: the
// parent channel of a thread, the reply chain and the channel's talk. What cannot be found is
// logged and left out; the turn is answered anyway.
func (b *Bot) prepare(ctx context.Context, req chat.Request) chat.Request {
	if req.GuildID != "" {
		parent, err := b.ThreadParent(ctx, req.ChannelID)
		if err != nil {
			b.log.WarnContext(ctx, "thread parent unknown: the channel's own settings apply", "channel_id", req.ChannelID, "err", err)
		}
		req.ParentID = parent
	}
	req.ReplyChain = b.replyChain(ctx, req)
	req.Talk = b.channelTalk(ctx, req)
	return req
}

// replyChain follows the reply chain of req back from the message it
// replies to, newest first, at most memory.MaxReplyChain messages: from the
// database while the messages are stored, else from Discord (the message
// the gateway sent along, or GET /channels/{id}/messages/{id}).
func (b *Bot) replyChain(ctx context.Context, req chat.Request) []memory.ChainMessage {
	if req.ReplyTo == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, chainTimeout)
	defer cancel()
	botID := b.UserID()
	known := map[string]memory.ChainMessage{} // sent along by Discord
	for _, c := range req.ReplyChain {
		known[c.ID] = c
	}
	key := memory.SessionKey(req.Session)
	var chain []memory.ChainMessage
	seen := map[string]bool{}
	for id := req.ReplyTo; id != "" && len(chain) < memory.MaxReplyChain && !seen[id]; {
		if b.opts.Chains != nil {
			stored, err := b.opts.Chains.StoredReplyChain(ctx, key, id, memory.MaxReplyChain-len(chain))
			if err != nil {
				b.log.WarnContext(ctx, "stored reply chain", "channel_id", req.ChannelID, "message_id", id, "err", err)
			}
			if len(stored) > 0 {
				for _, c := range stored {
					for _, pid := range strings.Fields(c.ID) {
						seen[pid] = true
					}
				}
				chain = append(chain, stored...)
				id = stored[len(stored)-1].ReplyTo
				continue
			}
		}
		seen[id] = true
		c, ok := known[id]
		if !ok {
			m, err := b.session.ChannelMessage(req.ChannelID, id, discordgo.WithContext(ctx))
			if err != nil {
				var rest *discordgo.RESTError
				if errors.As(err, &rest) && rest.Response != nil && rest.Response.StatusCode == http.StatusNotFound {
					b.log.DebugContext(ctx, "replied-to message is gone", "channel_id", req.ChannelID, "message_id", id)
				} else {
					b.log.WarnContext(ctx, "fetch replied-to message", "channel_id", req.ChannelID, "message_id", id, "err", err)
				}
				break
			}
			c = chainMessage(m, botID)
			if ref := m.ReferencedMessage; ref != nil && ref.Author != nil {
				known[ref.ID] = chainMessage(ref, botID)
			}
		}
		if b.ownPost(c) {
			c.FromBot = true
		}
		chain = append(chain, c)
		id = c.ReplyTo
	}
	return chain
}

// maxOwnWebhooks bounds the webhooks remembered as yorozu's: a few are
// configured, and each change of one on the admin page adds one.
const maxOwnWebhooks = 100

// ownWebhooks are the ids of the webhooks yorozu posts through (the
// weather post's, the tips', the disaster posts'), those configured now and
// before, so that a reply to one of their posts has it as yorozu's own.
type ownWebhooks struct {
	mu  sync.Mutex
	ids map[string]bool
}

// OwnWebhook notes that the webhook at webhookURL posts for yorozu: its
// posts in a reply chain are yorozu's own (「あなた」 to the model), as its
// bot messages are. A URL that names no webhook ("" among them) is ignored;
// the URL's token is not kept.
func (b *Bot) OwnWebhook(webhookURL string) {
	id := webhookID(webhookURL)
	if id == "" {
		return
	}
	b.own.mu.Lock()
	defer b.own.mu.Unlock()
	if b.own.ids == nil || len(b.own.ids) >= maxOwnWebhooks {
		b.own.ids = map[string]bool{}
	}
	b.own.ids[id] = true
}

// ownPost reports whether c, a link from Discord, is a post of one of
// yorozu's webhooks.
func (b *Bot) ownPost(c memory.ChainMessage) bool {
	if c.Webhook == "" {
		return false
	}
	b.own.mu.Lock()
	defer b.own.mu.Unlock()
	return b.own.ids[c.Webhook]
}

// webhookID is the id in a webhook's URL, …/webhooks/{id}/{token}, or "".
func webhookID(webhookURL string) string {
	u, err := url.Parse(webhookURL)
	if err != nil {
		return ""
	}
	_, rest, ok := strings.Cut(u.Path, "/webhooks/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	for _, r := range id {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return id
}

// ThreadParent is the parent channel of channelID when it is a thread, ""
// when it is not. It asks the gateway's state, else GET /channels/{id}, and
// remembers the answer: a thread's parent never changes.
func (b *Bot) ThreadParent(ctx context.Context, channelID string) (string, error) {
	b.mu.Lock()
	parent, ok := b.parents[channelID]
	b.mu.Unlock()
	if ok {
		return parent, nil
	}
	ch, err := b.session.State.Channel(channelID)
	if err != nil {
		rctx, cancel := context.WithTimeout(ctx, restTimeout)
		defer cancel()
		if ch, err = b.session.Channel(channelID, discordgo.WithContext(rctx)); err != nil {
			return "", err
		}
	}
	if ch.IsThread() {
		parent = ch.ParentID
	}
	b.mu.Lock()
	if len(b.parents) >= maxParents {
		clear(b.parents)
	}
	b.parents[channelID] = parent
	b.mu.Unlock()
	return parent, nil
}
