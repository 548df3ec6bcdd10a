package chat

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// LogSource reads a channel's talk from the channel log (/channel log)
// where it is on, and from History elsewhere: the log keeps what Discord's
// history may no longer show in order (edits and deletions followed, no
// 500-message page walk), and reading it costs no Discord call.
type LogSource struct {
	DB      db.Querier    // required
	History MessageSource // required: channels without a log, and DMs
	// Threads tells a thread's parent channel, whose log a thread's
	// talk is kept in when it is on; nil: a thread is read as logged
	// only when its own setting says so.
	Threads ThreadParents
	// Readable tells whether yorozu may read a channel's history, for
	// Note; nil: not said.
	Readable HistoryReadable
}

// HistoryReadable tells whether yorozu itself may read a channel's
// history (View Channel and Read Message History); the Discord adapter
// does.
type HistoryReadable interface {
	MayReadHistory(ctx context.Context, guildID, channelID string) (bool, error)
}

// ThreadParents tells a thread's parent channel; the Discord adapter
// does.
type ThreadParents interface {
	// ThreadParent returns channelID's parent channel when it is a
	// thread, else "".
	ThreadParent(ctx context.Context, channelID string) (string, error)
}

var _ MessageSource = (*LogSource)(nil)

// logged reports whether channelID of guildID is read from the log.
func (l *LogSource) logged(ctx context.Context, guildID, channelID string) (bool, error) {
	if guildID == "" {
		return false, nil
	}
	settings, err := db.ChannelLogSettings(ctx, l.DB)
	if err != nil {
		return false, fmt.Errorf("read channel log settings for %s: %w", channelID, err)
	}
	parent := ""
	if l.Threads != nil {
		// Unknown (Discord away): only the channel's own setting counts,
		// and the history is read as for a channel without a log.
		parent, _ = l.Threads.ThreadParent(ctx, channelID)
	}
	return db.ChannelLogOn(settings, guildID, channelID, parent), nil
}

// Note says, in a sentence for the user, what a summary of channelID
// reads: its log, or Discord's history (and that yorozu may not read it,
// when Readable says so).
func (l *LogSource) Note(ctx context.Context, guildID, channelID string) string {
	if logged, err := l.logged(ctx, guildID, channelID); err == nil && logged {
		return "このチャンネルの記録（/channel log）から読みます。"
	}
	note := fmt.Sprintf("このチャンネルは記録（/channel log）がオフなので、Discord のメッセージ履歴（直近%d件まで）から読みます。", DefaultSummaryMessages)
	if l.Readable != nil {
		if ok, err := l.Readable.MayReadHistory(ctx, guildID, channelID); err == nil && !ok {
			note += "ただし、yorozu にこのチャンネルの「メッセージ履歴を読む」（Read Message History）権限がないため、このままでは読めません。権限を付けてください。"
		}
	}
	return note
}

// ChannelMessages reads the log when channelID of guildID is logged (a
// thread: when its parent's log is on and the thread does not turn it
// off), else the history.
func (l *LogSource) ChannelMessages(ctx context.Context, guildID, channelID string, since, until time.Time, limit int) ([]ChannelMessage, bool, error) {
	logged, err := l.logged(ctx, guildID, channelID)
	if err != nil {
		return nil, false, err
	}
	if !logged {
		return l.History.ChannelMessages(ctx, guildID, channelID, since, until, limit)
	}
	rows, err := db.SearchChannelLog(ctx, l.DB, db.ChannelLogQuery{
		Space: string(memory.SpaceOf("discord", guildID, "")), ChannelID: channelID, Since: since, Until: until, Limit: limit + 1,
	})
	if err != nil {
		return nil, false, fmt.Errorf("read channel log of %s: %w", channelID, err)
	}
	truncated := len(rows) > limit
	if truncated {
		rows = rows[:limit]
	}
	out := make([]ChannelMessage, 0, len(rows))
	for _, r := range rows {
		out = append(out, ChannelMessage{ID: r.ID(), ChannelID: r.ChannelID, Author: r.AuthorName, Bot: r.AuthorKind != db.AuthorMember,
			At: r.CreatedAt, Text: r.Content, Attachments: r.Attachments})
	}
	slices.Reverse(out) // newest first from the log
	return out, truncated, nil
}
