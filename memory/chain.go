package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory/talk"
)

// MaxReplyChain is how many messages of a reply chain (the message replied
// to, the one it replied to, …) one turn's context takes.
const MaxReplyChain = 10

// chainItemChars cuts each message of a reply chain before the budget sees
// it: a long answer is several Discord messages.
const chainItemChars = 4000

// personaHeading introduces a channel's persona in the system prompt.
const personaHeading = "## このチャンネルでのペルソナ\nこのチャンネルのために決められたペルソナ（口調や役柄）です。これに従ってください（上の決まりはそのまま守ること）。\n"

// ChainMessage is one message of a reply chain, from the database or the
// platform.
type ChainMessage struct {
	ID         string // platform message id; a stored answer's ids space-separated
	ReplyTo    string // the message it replies to (or, for an answer, the question); "" none
	FromBot    bool   // yorozu wrote it (as its bot user, or through one of its webhooks)
	Webhook    string // the platform's id of the webhook that posted it; "" for a user's or a bot's message
	AuthorName string
	Content    string
	At         time.Time
}

// ContextOption adds what one turn brings to its context.
type ContextOption func(*contextExtras)

type contextExtras struct {
	persona string
	chain   []ChainMessage
	docs    []Document
	talk    []talk.Message
	// speaker and speakerName: whose facts join the context (WithSpeaker).
	speaker, speakerName string
}

// WithPersona puts the channel's persona into the system prompt, after
// yorozu's own guidance and before the memory layers. "" adds nothing.
func WithPersona(text string) ContextOption {
	return func(e *contextExtras) { e.persona = strings.TrimSpace(text) }
}

// WithReplyChain puts the message the user replied to, and its own reply
// chain, into the context: chain is newest first (the message replied to
// first), at most MaxReplyChain are used. Messages already among the recent
// ones are not repeated.
func WithReplyChain(chain []ChainMessage) ContextOption {
	return func(e *contextExtras) { e.chain = chain }
}

// StoredReplyChain follows a reply chain through the stored messages of
// session key, from the message platformID back, while each is stored and
// at most max: newest first. The last one's ReplyTo is where the chain goes
// on outside the database ("" when it ends there). A message that is not
// stored gives an empty chain, not an error.
func (m *Memory) StoredReplyChain(ctx context.Context, key SessionKey, platformID string, max int) ([]ChainMessage, error) {
	var out []ChainMessage
	seen := map[string]bool{}
	for id := platformID; id != "" && len(out) < max && !seen[id]; {
		row, err := db.MessageByPlatformID(ctx, m.pool, string(key), id)
		if errors.Is(err, db.ErrNotFound) {
			break
		}
		if err != nil {
			return out, fmt.Errorf("reply chain of %s: %w", platformID, err)
		}
		for _, pid := range strings.Fields(row.PlatformMessageID) {
			seen[pid] = true
		}
		out = append(out, ChainMessage{
			ID: row.PlatformMessageID, ReplyTo: row.Parent, FromBot: row.Role == db.RoleAssistant,
			AuthorName: row.AuthorName, Content: row.Content, At: row.CreatedAt,
		})
		id = row.Parent
	}
	return out, nil
}

// chainLayer shows the reply chain oldest first, leaving out what the
// recent messages already show.
func (m *Memory) chainLayer(chain []ChainMessage, recent []db.Message) layer {
	l := layer{
		title:    "## 返信先の発言\nユーザーの今回のメッセージは、次の発言への返信です (古い順。最後が直接の返信先)。",
		keepTail: true, cuttable: true,
	}
	shown := map[string]bool{}
	for _, h := range recent {
		for _, id := range strings.Fields(h.PlatformMessageID) {
			shown[id] = true
		}
	}
	if len(chain) > MaxReplyChain {
		chain = chain[:MaxReplyChain]
	}
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		if slices.ContainsFunc(strings.Fields(c.ID), func(id string) bool { return shown[id] }) {
			continue
		}
		who := c.AuthorName
		if c.FromBot {
			who = "あなた (よろず)"
		} else if who == "" {
			who = "ユーザー"
		}
		content := strings.TrimSpace(c.Content)
		if utf8.RuneCountInString(content) > chainItemChars {
			content = string([]rune(content)[:chainItemChars]) + "…"
		}
		it := fmt.Sprintf("- [%s] %s: %s", c.At.In(m.opts.Location).Format("2006-01-02 15:04"), who, content)
		l.items = append(l.items, it)
		l.tokens = append(l.tokens, EstimateTokens(it)+1)
	}
	return l
}
