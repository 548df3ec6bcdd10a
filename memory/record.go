package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
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
// user's message alone, so the next turn still sees what was asked. It is
// Begin and its commit at once.
func (m *Memory) Record(ctx context.Context, key SessionKey, turn Turn) error {
	return m.Begin(key, turn)(ctx)
}

// Begin makes turn part of session key's context at once: a Context call that
// starts after Begin returns includes it (as the stored turn would read),
// before and after the returned commit stores it. commit does what Record
// did and must be called exactly once; when it fails, the turn leaves the
// context again (the context stays what the database holds).
func (m *Memory) Begin(key SessionKey, turn Turn) (commit func(ctx context.Context) error) {
	// The times are fixed now, as the database will keep them, so that the
	// turn reads the same before and after it is stored.
	now := m.opts.Now()
	given := turn // AfterRecord gets the turn as it was handed over
	turn.User.At = storedTime(orNow(turn.User.At, now))
	turn.Reply.At = storedTime(orNow(turn.Reply.At, now))
	p := m.pending.add(key, turn)
	var once sync.Once
	return func(ctx context.Context) error {
		err := errors.New("record turn: committed twice")
		once.Do(func() { err = m.commit(ctx, key, turn, given, p) })
		return err
	}
}

// commit stores pending turn p of session key and takes it out of the
// pending turns, after its rows are in the cache (or the cache forgot the
// conversation), so a Context always finds it in one or the other.
func (m *Memory) commit(ctx context.Context, key SessionKey, turn, given Turn, p *pendingTurn) error {
	space, stored, err := m.store(ctx, key, turn)
	if err != nil {
		// The outcome may be unknown (a commit cut short): what this
		// process caches of the conversation is read again.
		m.dropKey(key)
		m.pending.remove(key, p)
		return fmt.Errorf("record turn in session %q: %w", key, err)
	}
	m.cache.applyTurn(key, stored, m.opts.MaxMessages, m.opts.MaxChars)
	m.pending.remove(key, p)
	m.afterRecord(space, stored)
	if m.opts.AfterRecord != nil {
		m.opts.AfterRecord(key, given)
	}
	return nil
}

// store writes turn in session key and returns its space and the rows it
// stored.
func (m *Memory) store(ctx context.Context, key SessionKey, turn Turn) (Space, []db.Message, error) {
	space := turn.Space
	if space == "" {
		space = SpaceOf(turn.Source, turn.GuildID, turn.User.AuthorID)
	}
	space, err := m.space(ctx, space)
	if err != nil {
		return "", nil, err
	}
	var stored []db.Message
	err = pgx.BeginFunc(ctx, m.pool, func(tx pgx.Tx) error {
		// The channel's next turn waits for this one to be kept: the
		// commit does not wait for the disk too (a database crash may
		// forget the last second's turns, which Discord still shows).
		// The change's notice carries this process's tag: its cache has
		// the turn already.
		if err := db.CommitWithoutFlush(ctx, tx, m.origin); err != nil {
			return err
		}
		s, err := db.UpsertSession(ctx, tx, db.SessionParams{
			Key: string(key), Source: turn.Source, GuildID: turn.GuildID, ChannelID: turn.ChannelID,
			Space: string(space), At: turn.Reply.At,
		})
		if err != nil {
			return err
		}
		stored = nil // a retried transaction starts again
		user, err := db.InsertMessage(ctx, tx, messageParams(s.ID, db.RoleUser, turn.User, turn.User.At, nil))
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
		reply, err := db.InsertMessage(ctx, tx, messageParams(s.ID, db.RoleAssistant, turn.Reply, turn.Reply.At, &user.ID))
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
		return "", nil, err
	}
	return space, stored, nil
}

// RecordReplyIDs keeps the platform ids of a reply once the adapter has sent
// it (a long reply is several messages; their ids are kept space-separated,
// in order) with the turn whose user message is userMessageID. A turn still
// being stored is waited for.
func (m *Memory) RecordReplyIDs(ctx context.Context, key SessionKey, userMessageID string, replyIDs []string) error {
	if userMessageID == "" || len(replyIDs) == 0 {
		return nil
	}
	if err := m.pending.settled(ctx, key, userMessageID); err != nil {
		return fmt.Errorf("set reply id of message %s in session %q: %w", userMessageID, key, err)
	}
	ids := strings.Join(replyIDs, " ")
	changed, err := db.SetReplyPlatformID(ctx, m.pool, m.origin, string(key), userMessageID, ids)
	if err != nil {
		return err
	}
	m.cache.setReplyIDs(key, changed, ids)
	return nil
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
