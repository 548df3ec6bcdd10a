package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yorozu-bot/yorozu/db"
)

// Turn is one exchange to keep: the user's message and the reply to it.
type Turn struct {
	Source    string // "discord", "web", …
	GuildID   string // empty outside guilds
	ChannelID string
	// Space is whose memory the turn joins; empty: SpaceOf(Source,
	// GuildID, User.AuthorID), else the default space. A session stays in
	// the space of its first turn.
	Space Space
	User  MessageRecord
	Reply MessageRecord
}

// MessageRecord is one side of a Turn.
type MessageRecord struct {
	AuthorID          string
	AuthorName        string
	Content           string
	PlatformMessageID string    // e.g. the Discord message id
	ReplyTo           string    // the platform id of the message a user's message replied to
	Model             string    // the model that wrote a reply
	At                time.Time // zero means the Memory's clock
	// Images are what is kept of the pictures sent with a user's message
	// (name, size, dimensions; never the bytes).
	Images []db.MessageImage
	// Activity is what a reply's turn did (tools, sources, stopped), kept
	// with the reply.
	Activity db.Activity
}

// Record stores a turn in session key, creating the session if needed. The
// user message and the reply are written in one transaction: both or neither.
// A turn without reply text (the model failed before writing any) keeps the
// user's message alone, so the next turn still sees what was asked.
func (m *Memory) Record(ctx context.Context, key SessionKey, turn Turn) error {
	now := m.opts.Now()
	userAt, replyAt := orNow(turn.User.At, now), orNow(turn.Reply.At, now)
	space := turn.Space
	if space == "" {
		space = SpaceOf(turn.Source, turn.GuildID, turn.User.AuthorID)
	}
	space, err := m.space(ctx, space)
	if err != nil {
		return fmt.Errorf("record turn in session %q: %w", key, err)
	}
	var stored []db.Message
	err = pgx.BeginFunc(ctx, m.pool, func(tx pgx.Tx) error {
		// The channel's next turn waits for this one to be kept: the
		// commit does not wait for the disk too (a database crash may
		// forget the last second's turns, which Discord still shows).
		if err := db.CommitWithoutFlush(ctx, tx); err != nil {
			return err
		}
		s, err := db.UpsertSession(ctx, tx, db.SessionParams{
			Key: string(key), Source: turn.Source, GuildID: turn.GuildID, ChannelID: turn.ChannelID,
			Space: string(space), At: replyAt,
		})
		if err != nil {
			return err
		}
		user, err := db.InsertMessage(ctx, tx, messageParams(s.ID, db.RoleUser, turn.User, userAt, nil))
		if err != nil {
			return err
		}
		stored = []db.Message{user}
		if len(turn.User.Images) > 0 {
			if err := db.SetMessageImages(ctx, tx, user.ID, turn.User.Images); err != nil {
				return err
			}
		}
		if turn.Reply.Content == "" {
			return nil
		}
		reply, err := db.InsertMessage(ctx, tx, messageParams(s.ID, db.RoleAssistant, turn.Reply, replyAt, &user.ID))
		if err != nil {
			return err
		}
		stored = append(stored, reply)
		if turn.Reply.Activity.Empty() {
			return nil
		}
		return db.SetMessageActivity(ctx, tx, reply.ID, turn.Reply.Activity)
	})
	if err != nil {
		return fmt.Errorf("record turn in session %q: %w", key, err)
	}
	m.afterRecord(space, stored)
	if m.opts.AfterRecord != nil {
		m.opts.AfterRecord(key, turn)
	}
	return nil
}

// RecordReplyIDs keeps the platform ids of a reply once the adapter has sent
// it (a long reply is several messages; their ids are kept space-separated,
// in order) with the turn whose user message is userMessageID.
func (m *Memory) RecordReplyIDs(ctx context.Context, key SessionKey, userMessageID string, replyIDs []string) error {
	if userMessageID == "" || len(replyIDs) == 0 {
		return nil
	}
	return db.SetReplyPlatformID(ctx, m.pool, string(key), userMessageID, strings.Join(replyIDs, " "))
}

func messageParams(sessionID int64, role string, r MessageRecord, at time.Time, replyTo *int64) db.MessageParams {
	return db.MessageParams{
		SessionID: sessionID, Role: role, AuthorID: r.AuthorID, AuthorName: r.AuthorName,
		Content: r.Content, PlatformMessageID: r.PlatformMessageID, ReplyToPlatformID: r.ReplyTo, Model: r.Model,
		CreatedAt: at, ReplyToID: replyTo,
	}
}

func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t
}
