package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// MaxPersonaChars bounds a persona, in characters (runes).
const MaxPersonaChars = 2000

// Where a setting in force comes from (EffectiveSettings).
const (
	FromThread  = "thread"
	FromChannel = "channel"
	FromServer  = "server"
	FromDefault = "default"
)

// ChannelSetting is a row of channel_settings: one Discord channel's,
// thread's or DM's own persona and model, or a server's defaults (ChannelID
// ""). A nil field is not set there and is inherited.
type ChannelSetting struct {
	GuildID   string    `db:"guild_id"`   // "" for a DM
	ChannelID string    `db:"channel_id"` // "" for the server's defaults
	ParentID  string    `db:"parent_id"`  // a thread's parent channel
	Persona   *string   `db:"persona"`
	Model     *string   `db:"model"`
	Mode      *string   `db:"mode"`       // ModeMention, ModeFree or ModeThread
	Talk      *bool     `db:"talk"`       // the channel's recent talk in context
	UpdatedBy string    `db:"updated_by"` // Discord user id, or "admin"
	UpdatedAt time.Time `db:"updated_at"`
}

const channelSettingColumns = "guild_id, channel_id, parent_id, persona, model, mode, talk, updated_by, updated_at"

// ChannelSettingUpdate changes the settings of one place. A nil field is
// left as it is; a pointer to "" clears it, so the value is inherited again.
type ChannelSettingUpdate struct {
	GuildID   string // "" for a DM
	ChannelID string // "" for the server's defaults
	ParentID  string // a thread's parent channel; "" keeps what is stored
	Persona   *string
	Model     *string
	// Mode is ModeMention, ModeFree or ModeThread (a pointer to "" clears
	// it); anything else is refused with ErrBadMode.
	Mode *string
	// Talk turns the channel's recent talk in context "on" or "off" (a
	// pointer to "" clears it); anything else is refused with ErrBadTalk.
	Talk *string
	By   string
}

// UpdateChannelSetting applies u, creating the row if needed, and returns
// the row as stored.
func UpdateChannelSetting(ctx context.Context, q Querier, u ChannelSettingUpdate) (ChannelSetting, error) {
	if u.GuildID == "" && u.ChannelID == "" {
		return ChannelSetting{}, fmt.Errorf("update channel setting: neither a server nor a channel")
	}
	if u.Mode != nil && *u.Mode != "" && !ValidMode(*u.Mode) {
		return ChannelSetting{}, fmt.Errorf("update channel setting %s/%s: %w: %q", u.GuildID, u.ChannelID, ErrBadMode, *u.Mode)
	}
	if u.Talk != nil && *u.Talk != "" && *u.Talk != TalkOn && *u.Talk != TalkOff {
		return ChannelSetting{}, fmt.Errorf("update channel setting %s/%s: %w: %q", u.GuildID, u.ChannelID, ErrBadTalk, *u.Talk)
	}
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	rows, err := q.Query(ctx, `
INSERT INTO channel_settings (guild_id, channel_id, parent_id, persona, model, mode, talk, updated_by, updated_at)
VALUES ($1, $2, $3, NULLIF($4, ''), NULLIF($5, ''), NULLIF($9, ''), CASE $11 WHEN 'on' THEN true WHEN 'off' THEN false END, $6, now())
ON CONFLICT (guild_id, channel_id) DO UPDATE SET
    parent_id  = COALESCE(NULLIF(EXCLUDED.parent_id, ''), channel_settings.parent_id),
    persona    = CASE WHEN $7 THEN EXCLUDED.persona ELSE channel_settings.persona END,
    model      = CASE WHEN $8 THEN EXCLUDED.model ELSE channel_settings.model END,
    mode       = CASE WHEN $10 THEN EXCLUDED.mode ELSE channel_settings.mode END,
    talk       = CASE WHEN $12 THEN EXCLUDED.talk ELSE channel_settings.talk END,
    updated_by = EXCLUDED.updated_by,
    updated_at = EXCLUDED.updated_at
RETURNING `+channelSettingColumns,
		u.GuildID, u.ChannelID, u.ParentID, deref(u.Persona), deref(u.Model), u.By, u.Persona != nil, u.Model != nil,
		deref(u.Mode), u.Mode != nil, deref(u.Talk), u.Talk != nil)
	if err != nil {
		return ChannelSetting{}, fmt.Errorf("update channel setting %s/%s: %w", u.GuildID, u.ChannelID, err)
	}
	s, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[ChannelSetting])
	if err != nil {
		return ChannelSetting{}, fmt.Errorf("update channel setting %s/%s: %w", u.GuildID, u.ChannelID, interpretError(err))
	}
	return s, nil
}

// EffectiveSettings are the persona and model in force in a channel, each
// with where it comes from: FromThread, FromChannel, FromServer or
// FromDefault (then the value is "": yorozu's own).
type EffectiveSettings struct {
	Persona     string
	PersonaFrom string
	Model       string
	ModelFrom   string
	Mode        string // ModeMention when nothing sets one
	ModeFrom    string
	// Talk: a turn is given the channel's recent talk (true when nothing
	// sets it).
	Talk     bool
	TalkFrom string
}

// ChannelSettingsInForce returns what is in force in channelID of guildID
// (guildID "" for a DM). parentID is the parent channel when channelID is a
// thread: the thread's own values win, then the parent's, then the server's.
func ChannelSettingsInForce(ctx context.Context, q Querier, guildID, channelID, parentID string) (EffectiveSettings, error) {
	rows, err := q.Query(ctx, "SELECT "+channelSettingColumns+` FROM channel_settings
WHERE guild_id = $1 AND channel_id = ANY($2::text[])`, guildID, []string{channelID, parentID, ""})
	if err != nil {
		return EffectiveSettings{}, fmt.Errorf("channel settings of %s/%s: %w", guildID, channelID, err)
	}
	ss, err := pgx.CollectRows(rows, pgx.RowToStructByName[ChannelSetting])
	if err != nil {
		return EffectiveSettings{}, fmt.Errorf("channel settings of %s/%s: %w", guildID, channelID, err)
	}
	return Resolve(ss, guildID, channelID, parentID), nil
}

// Resolve picks what is in force in channelID (a thread when parentID is
// set; "" for the server's defaults themselves) from rows, which may hold
// rows of other places too.
func Resolve(rows []ChannelSetting, guildID, channelID, parentID string) EffectiveSettings {
	type level struct{ channel, from string }
	var levels []level // farthest last
	switch {
	case channelID == "": // the server's defaults themselves
	case parentID != "" && parentID != channelID:
		levels = []level{{channelID, FromThread}, {parentID, FromChannel}}
	default:
		levels = []level{{channelID, FromChannel}}
	}
	if guildID != "" {
		levels = append(levels, level{"", FromServer})
	}
	e := EffectiveSettings{PersonaFrom: FromDefault, ModelFrom: FromDefault, Mode: ModeMention, ModeFrom: FromDefault, Talk: true, TalkFrom: FromDefault}
	for i := len(levels) - 1; i >= 0; i-- { // the nearest level is applied last
		for _, r := range rows {
			if r.GuildID != guildID || r.ChannelID != levels[i].channel {
				continue
			}
			if r.Persona != nil {
				e.Persona, e.PersonaFrom = *r.Persona, levels[i].from
			}
			if r.Model != nil {
				e.Model, e.ModelFrom = *r.Model, levels[i].from
			}
			if r.Talk != nil {
				e.Talk, e.TalkFrom = *r.Talk, levels[i].from
			}
			if r.Mode != nil && levels[i].from != FromServer {
				e.Mode, e.ModeFrom = *r.Mode, levels[i].from
			}
		}
	}
	return e
}

// KnownChannel is a place the admin page can set a persona and model for:
// a server (ChannelID ""), channel, thread or DM that has talked to yorozu
// or has settings.
type KnownChannel struct {
	GuildID    string     `db:"guild_id"`
	ChannelID  string     `db:"channel_id"`
	ParentID   string     `db:"parent_id"`
	Persona    *string    `db:"persona"`
	Model      *string    `db:"model"`
	Mode       *string    `db:"mode"`
	Talk       *bool      `db:"talk"`
	UpdatedBy  string     `db:"updated_by"`
	UpdatedAt  *time.Time `db:"updated_at"`  // nil: nothing stored for it
	LastActive *time.Time `db:"last_active"` // its conversation's last turn, if any
}

// knownChannelsSQL lists the known places; %s filters them (k.*).
const knownChannelsSQL = `
WITH talked AS (
    SELECT guild_id, channel_id, max(updated_at) AS last_active FROM sessions
    WHERE source = 'discord' AND channel_id <> '' AND deleted_at IS NULL
    GROUP BY guild_id, channel_id
), places AS (
    SELECT guild_id, channel_id, last_active FROM talked
    UNION ALL
    SELECT DISTINCT guild_id, '', NULL::timestamptz FROM talked WHERE guild_id <> ''
)
SELECT k.* FROM (
    SELECT COALESCE(c.guild_id, p.guild_id) AS guild_id, COALESCE(c.channel_id, p.channel_id) AS channel_id,
           COALESCE(c.parent_id, '') AS parent_id, c.persona, c.model, c.mode, c.talk,
           COALESCE(c.updated_by, '') AS updated_by, c.updated_at, p.last_active
    FROM channel_settings c
    FULL JOIN (SELECT guild_id, channel_id, max(last_active) AS last_active FROM places GROUP BY guild_id, channel_id) p
           ON p.guild_id = c.guild_id AND p.channel_id = c.channel_id
) k
WHERE %s
ORDER BY k.guild_id = '', k.guild_id, COALESCE(NULLIF(k.parent_id, ''), k.channel_id), k.parent_id <> '', k.channel_id`

// KnownChannels lists every Discord place with settings or a conversation,
// by server (a server's defaults first, threads after their parent
// channel), DMs last.
func KnownChannels(ctx context.Context, q Querier) ([]KnownChannel, error) {
	cs, err := knownChannels(ctx, q, "true")
	if err != nil {
		return nil, fmt.Errorf("known channels: %w", err)
	}
	return cs, nil
}

// KnownChannelByID returns the known channel, thread or DM channelID, or
// ErrNotFound.
func KnownChannelByID(ctx context.Context, q Querier, channelID string) (KnownChannel, error) {
	cs, err := knownChannels(ctx, q, "k.channel_id = $1 AND $1 <> ''", channelID)
	if err == nil && len(cs) == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return KnownChannel{}, fmt.Errorf("known channel %s: %w", channelID, err)
	}
	return cs[0], nil
}

// KnownServerByID returns the defaults entry of the known server guildID,
// or ErrNotFound.
func KnownServerByID(ctx context.Context, q Querier, guildID string) (KnownChannel, error) {
	cs, err := knownChannels(ctx, q, "k.guild_id = $1 AND $1 <> '' AND k.channel_id = ''", guildID)
	if err == nil && len(cs) == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return KnownChannel{}, fmt.Errorf("known server %s: %w", guildID, err)
	}
	return cs[0], nil
}

func knownChannels(ctx context.Context, q Querier, where string, args ...any) ([]KnownChannel, error) {
	rows, err := q.Query(ctx, fmt.Sprintf(knownChannelsSQL, where), args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByName[KnownChannel])
}

// Channel modes: how yorozu listens in a Discord channel (and its threads).
const (
	ModeMention = "mention" // answers mentions and replies to its messages (the default)
	ModeFree    = "free"    // answers every message but those meant for others
	ModeThread  = "thread"  // a mention opens a thread, answered there without mentions
)

// ErrBadMode is a channel mode that is none of ModeMention, ModeFree and
// ModeThread.
var ErrBadMode = errors.New("the mode must be mention, free or thread")

// The values of ChannelSettingUpdate.Talk.
const (
	TalkOn  = "on"
	TalkOff = "off"
)

// ErrBadTalk is a talk setting that is neither TalkOn nor TalkOff.
var ErrBadTalk = errors.New("the channel talk setting must be on or off")

// ValidMode reports whether mode is one of the channel modes.
func ValidMode(mode string) bool {
	return mode == ModeMention || mode == ModeFree || mode == ModeThread
}

// ChannelMode is a channel (or thread) with a mode of its own.
type ChannelMode struct {
	GuildID   string `db:"guild_id"`
	ChannelID string `db:"channel_id"`
	Mode      string `db:"mode"`
}

// ChannelModes lists every channel and thread with a mode set, for the
// bot to decide without a query which messages it answers.
func ChannelModes(ctx context.Context, q Querier) ([]ChannelMode, error) {
	rows, err := q.Query(ctx, `SELECT guild_id, channel_id, mode FROM channel_settings
WHERE mode IS NOT NULL AND channel_id <> '' ORDER BY channel_id`)
	if err != nil {
		return nil, fmt.Errorf("channel modes: %w", err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[ChannelMode])
	if err != nil {
		return nil, fmt.Errorf("channel modes: %w", err)
	}
	return ms, nil
}

// AllChannelSettings returns every row of channel_settings (a few per
// server: the places someone set something for), for a cache of them.
func AllChannelSettings(ctx context.Context, q Querier) ([]ChannelSetting, error) {
	rows, err := q.Query(ctx, "SELECT "+channelSettingColumns+" FROM channel_settings")
	if err != nil {
		return nil, fmt.Errorf("channel settings: %w", err)
	}
	ss, err := pgx.CollectRows(rows, pgx.RowToStructByName[ChannelSetting])
	if err != nil {
		return nil, fmt.Errorf("channel settings: %w", err)
	}
	return ss, nil
}
