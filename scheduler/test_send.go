package scheduler

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/db"
)

// TestMark heads a test send, so nobody takes it for the real delivery.
const TestMark = "🧪 テスト送信（予定はそのままです）\n"

// ErrNoDiscord is a test send where this process has no Discord to post to.
var ErrNoDiscord = errors.New("no Discord connection to post to")

// SendTest posts reminder id once, now, to its channel, headed by TestMark:
// a scheduled post as the model writes it, a reminder as it reads when
// delivered, without pinging anyone. Its schedule is untouched: the next
// occurrence, the deliveries and the attempts stay as they are. It returns
// the id of the message posted.
func (r *Reminders) SendTest(ctx context.Context, id int64) (string, error) {
	if r.s.opts.Discord == nil {
		return "", fmt.Errorf("test send reminder %d: %w", id, ErrNoDiscord)
	}
	rem, err := db.ReminderByID(ctx, r.s.pool, id)
	if err != nil {
		return "", fmt.Errorf("test send reminder %d: %w", id, err)
	}
	text := reminderHead(rem)
	if rem.Kind == db.KindPost {
		w := &reminderWorker{s: r.s}
		if text, err = w.writePost(ctx, rem); err != nil {
			return "", fmt.Errorf("test send reminder %d: write post: %w", id, err)
		}
	}
	// A fresh nonce per press: each is a send of its own, and a retry of
	// the same request is not posted twice.
	n, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return "", fmt.Errorf("test send reminder %d: %w", id, err)
	}
	body := outgoingMessage{
		Content:         truncateRunes(TestMark+text, maxMessageRunes),
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{}},
		Nonce:           n.String(),
		EnforceNonce:    true,
	}
	ctx, cancel := context.WithTimeout(ctx, r.s.opts.SendTimeout)
	defer cancel()
	endpoint := discordgo.EndpointChannelMessages(rem.ChannelID)
	raw, err := r.s.opts.Discord.RequestWithBucketID(http.MethodPost, endpoint, body, endpoint, discordgo.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("test send reminder %d: %w", id, err)
	}
	var m discordgo.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("test send reminder %d: decode sent message: %w", id, err)
	}
	return m.ID, nil
}
