package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Space names whose memory something is: one Discord server, one user's
// DMs, or the admin page's web space. Notes, knowledge, summaries (through
// their conversation), tags and the word pool belong to one space, and a
// conversation only ever sees its own. Build it with GuildSpace, DMSpace or
// WebSpace.
type Space string

// WebSpace is the space of chats started on the admin page that are not
// given another.
const WebSpace Space = "web"

// GuildSpace is the space of a Discord server. Its threads belong to it.
func GuildSpace(guildID string) Space { return Space("guild:" + guildID) }

// DMSpace is the space of one user's direct messages, private to that user.
func DMSpace(userID string) Space { return Space("dm:" + userID) }

// SpaceOf is the space of a turn an adapter hands over: the server it was
// written in, else a Discord user's DMs; "" (the default space) otherwise.
func SpaceOf(source, guildID, userID string) Space {
	switch {
	case guildID != "":
		return GuildSpace(guildID)
	case source == "discord" && userID != "":
		return DMSpace(userID)
	}
	return ""
}

// GuildID returns the server of a guild space, "" for other spaces.
func (s Space) GuildID() string {
	id, _ := strings.CutPrefix(string(s), "guild:")
	if id == string(s) {
		return ""
	}
	return id
}

// Dir is the space as a folder name: "guild-123", "dm-456", "web".
func (s Space) Dir() string { return strings.Replace(string(s), ":", "-", 1) }

// String returns the space as stored in the space columns.
func (s Space) String() string { return string(s) }

// space returns s, or the default space when s is empty: Options.DefaultSpace
// when set, else the only server's space when exactly one server has used
// the bot, else WebSpace.
func (m *Memory) space(ctx context.Context, s Space) (Space, error) {
	if s != "" {
		return s, nil
	}
	if m.opts.DefaultSpace != "" {
		return m.opts.DefaultSpace, nil
	}
	rows, err := m.pool.Query(ctx, "SELECT key FROM spaces WHERE key LIKE 'guild:%' LIMIT 2")
	if err != nil {
		return "", fmt.Errorf("default space: %w", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("default space: %w", err)
	}
	if len(keys) == 1 {
		return Space(keys[0]), nil
	}
	return WebSpace, nil
}

// DefaultSpace is the space of web chats and posts that name none (see
// Options.DefaultSpace).
func (m *Memory) DefaultSpace(ctx context.Context) (Space, error) { return m.space(ctx, "") }

// OnlyGuildSpace is the default space (Options.DefaultSpace) when
// DISCORD_GUILDS names exactly one server; otherwise "", and memory picks it
// (the only server that has used the bot, else the web space).
func OnlyGuildSpace(guilds []string) Space {
	if len(guilds) == 1 {
		return GuildSpace(guilds[0])
	}
	return ""
}
