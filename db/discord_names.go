package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The kinds of DiscordName.
const (
	NameGuild   = "guild"
	NameChannel = "channel" // a thread too, with its ParentID
	NameUser    = "user"
)

// DiscordName is a row of discord_names: what a server, channel, thread or
// user is called, as the gateway last said.
type DiscordName struct {
	Kind string `db:"kind"` // NameGuild, NameChannel or NameUser
	ID   string `db:"id"`
	// GuildID is a channel's server, or the server a user's name (their
	// nickname) holds in; "" for a server, and for a user's own name.
	GuildID   string    `db:"guild_id"`
	ParentID  string    `db:"parent_id"` // a thread's channel
	Name      string    `db:"name"`
	UpdatedAt time.Time `db:"updated_at"`
}

// SaveDiscordNames stores ns in one statement. A row whose name and parent
// are unchanged is not written again.
func SaveDiscordNames(ctx context.Context, q Querier, ns []DiscordName) error {
	if len(ns) == 0 {
		return nil
	}
	// One row per key: Postgres refuses a statement that updates a row twice.
	last := make(map[[3]string]int, len(ns))
	for i, n := range ns {
		last[[3]string{n.Kind, n.ID, n.GuildID}] = i
	}
	var kinds, ids, guilds, parents, names []string
	for i, n := range ns {
		if last[[3]string{n.Kind, n.ID, n.GuildID}] != i {
			continue
		}
		kinds, ids, guilds = append(kinds, n.Kind), append(ids, n.ID), append(guilds, n.GuildID)
		parents, names = append(parents, n.ParentID), append(names, n.Name)
	}
	_, err := q.Exec(ctx, `
		INSERT INTO discord_names (kind, id, guild_id, parent_id, name)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
		ON CONFLICT (kind, id, guild_id) DO UPDATE
		SET name = excluded.name, parent_id = excluded.parent_id, updated_at = now()
		WHERE discord_names.name <> excluded.name OR discord_names.parent_id <> excluded.parent_id`,
		kinds, ids, guilds, parents, names)
	if err != nil {
		return fmt.Errorf("save %d discord names: %w", len(kinds), err)
	}
	return nil
}

// DiscordNames is every known name, servers and channels first, then the
// users most recently renamed or seen first, at most limit rows.
func DiscordNames(ctx context.Context, q Querier, limit int) ([]DiscordName, error) {
	ns, err := queryNames(ctx, q, `ORDER BY kind = 'user', updated_at DESC, kind, id, guild_id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("list discord names: %w", err)
	}
	return ns, nil
}

// DiscordNamesOf is the names of the servers, channels and users ids
// (snowflakes of any kind), every row of each.
func DiscordNamesOf(ctx context.Context, q Querier, ids []string) ([]DiscordName, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ns, err := queryNames(ctx, q, `WHERE id = ANY($1) ORDER BY kind, id, guild_id`, ids)
	if err != nil {
		return nil, fmt.Errorf("read names of %d discord ids: %w", len(ids), err)
	}
	return ns, nil
}

// queryNames reads the rows of discord_names that rest (a WHERE, ORDER BY
// and LIMIT) selects.
func queryNames(ctx context.Context, q Querier, rest string, args ...any) ([]DiscordName, error) {
	rows, err := q.Query(ctx, `SELECT kind, id, guild_id, parent_id, name, updated_at FROM discord_names `+rest, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByName[DiscordName])
}
