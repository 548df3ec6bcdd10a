package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
)

// maxNames bounds the names GET /api/names gives: every server and channel,
// and the users most recently seen or renamed.
const maxNames = 20000

// nameBook is what the gateway last said servers, channels, threads and
// users are called (the bot keeps discord_names up to date). Where it knows
// no name the page shows the id, and says that it is one.
type nameBook struct {
	guilds   map[string]string
	channels map[string]db.DiscordName
	users    map[string]map[string]string // user id -> server id ("" their own) -> name
}

func newNameBook(ns []db.DiscordName) nameBook {
	nb := nameBook{guilds: map[string]string{}, channels: map[string]db.DiscordName{}, users: map[string]map[string]string{}}
	for _, n := range ns {
		switch n.Kind {
		case db.NameGuild:
			nb.guilds[n.ID] = n.Name
		case db.NameChannel:
			nb.channels[n.ID] = n
		case db.NameUser:
			if nb.users[n.ID] == nil {
				nb.users[n.ID] = map[string]string{}
			}
			nb.users[n.ID][n.GuildID] = n.Name
		}
	}
	return nb
}

// namesOf reads the names of ids (snowflakes of any kind). A failure is
// logged and leaves the book empty: the page shows ids, and works on.
func (s *Server) namesOf(ctx context.Context, ids []string) nameBook {
	ns, err := db.DiscordNamesOf(ctx, s.opts.Pool, ids)
	if err != nil {
		s.opts.Logger.Warn("admin api: names not read, ids shown", "err", err)
	}
	return newNameBook(ns)
}

// channel is "#name", or the id said as one.
func (nb nameBook) channel(id string) string {
	if c, ok := nb.channels[id]; ok {
		return "#" + c.Name
	}
	return "チャンネル（ID " + id + "）"
}

// user is userID's name in guildID, else their own, else the id said as one.
func (nb nameBook) user(userID, guildID string) string {
	if n, ok := nb.users[userID][guildID]; ok {
		return n
	}
	if n, ok := nb.users[userID][""]; ok {
		return n
	}
	for _, n := range nb.users[userID] {
		return n
	}
	return "ユーザー（ID " + userID + "）"
}

// sessionTitle is s's stored title, or one made from its channel's or DM
// user's name (their ids where no name is known).
func (nb nameBook) sessionTitle(s db.SessionItem) string {
	if s.Title != "" {
		return s.Title
	}
	switch {
	case strings.HasPrefix(s.Key, "discord:dm:"):
		if user, ok := strings.CutPrefix(s.Space, "dm:"); ok {
			return "Discord DM " + nb.user(user, "")
		}
		return "Discord DM（チャンネル ID " + strings.TrimPrefix(s.Key, "discord:dm:") + "）"
	case strings.HasPrefix(s.Key, "discord:channel:"):
		return "Discord " + nb.channel(strings.TrimPrefix(s.Key, "discord:channel:"))
	case sessionSource(s) == "web":
		return "新しいチャット"
	}
	return s.Key
}

// sessionIDs are the ids the titles of ss may name.
func sessionIDs(ss ...db.SessionItem) []string {
	var ids []string
	for _, s := range ss {
		if id, ok := strings.CutPrefix(s.Key, "discord:channel:"); ok {
			ids = append(ids, id)
		}
		if id, ok := strings.CutPrefix(s.Space, "dm:"); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// namesJSON is GET /api/names: what the page shows for ids.
type namesJSON struct {
	Guilds   map[string]string            `json:"guilds"`
	Channels map[string]channelNameJSON   `json:"channels"`
	Users    map[string]map[string]string `json:"users"` // user id -> server id ("" their own) -> name
}

type channelNameJSON struct {
	Name     string `json:"name"`
	GuildID  string `json:"guild_id"`
	ParentID string `json:"parent_id,omitempty"` // set for a thread
}

// handleNames gives the names of every server and channel and of the users
// seen lately, for the page to show in place of ids: GET /api/names.
func (s *Server) handleNames(w http.ResponseWriter, r *http.Request) {
	ns, err := db.DiscordNames(r.Context(), s.opts.Pool, maxNames)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	nb := newNameBook(ns)
	out := namesJSON{Guilds: nb.guilds, Channels: map[string]channelNameJSON{}, Users: nb.users}
	for id, c := range nb.channels {
		out.Channels[id] = channelNameJSON{Name: c.Name, GuildID: c.GuildID, ParentID: c.ParentID}
	}
	writeJSON(w, http.StatusOK, out)
}
