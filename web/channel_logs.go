package web

import (
	"net/http"
	"regexp"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// channelLogJSON is a channel whose log is on or holds messages (its
// threads' counted in).
type channelLogJSON struct {
	GuildID   string     `json:"guild_id"`
	ChannelID string     `json:"channel_id"`
	On        bool       `json:"on"`
	Messages  int64      `json:"messages"`
	Newest    *time.Time `json:"newest"`
}

// handleChannelLogs lists the logged channels with how many messages each
// keeps: GET /api/channel-logs.
func (s *Server) handleChannelLogs(w http.ResponseWriter, r *http.Request) {
	cs, err := db.ChannelLogCounts(r.Context(), s.opts.Pool)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := make([]channelLogJSON, len(cs))
	for i, c := range cs {
		out[i] = channelLogJSON(c)
	}
	writeJSON(w, http.StatusOK, out)
}

// handlePutChannelLog turns a channel's log on or off: PUT
// /api/channel-logs/{guild}/{channel} {"on": false}. What is kept stays
// (DELETE removes it).
func (s *Server) handlePutChannelLog(w http.ResponseWriter, r *http.Request) {
	var req struct {
		On *bool `json:"on"`
	}
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	guild, channel, ok := s.knownLog(w, r)
	if !ok {
		return
	}
	if req.On == nil {
		writeFieldError(w, "on", "true か false を指定してください")
		return
	}
	var err error
	if set := s.opts.Deps.ChannelLogSet; set != nil {
		err = set(r.Context(), guild, channel, "", *req.On, "admin")
	} else {
		err = db.SetChannelLog(r.Context(), s.opts.Pool, guild, channel, "", req.On, "admin")
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	s.writeChannelLog(w, r, guild, channel)
}

// handleDeleteChannelLog deletes what a channel's log (and its threads')
// keeps: DELETE /api/channel-logs/{guild}/{channel}. Whether it is on is
// left as it is.
func (s *Server) handleDeleteChannelLog(w http.ResponseWriter, r *http.Request) {
	guild, channel, ok := s.knownLog(w, r)
	if !ok {
		return
	}
	if _, err := db.DeleteChannelLog(r.Context(), s.opts.Pool, guild, channel); err != nil {
		s.internalError(w, r, err)
		return
	}
	s.writeChannelLog(w, r, guild, channel)
}

// writeChannelLog answers with the channel's log as it now is.
func (s *Server) writeChannelLog(w http.ResponseWriter, r *http.Request, guild, channel string) {
	cs, err := db.ChannelLogCounts(r.Context(), s.opts.Pool)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	for _, c := range cs {
		if c.GuildID == guild && c.ChannelID == channel {
			writeJSON(w, http.StatusOK, channelLogJSON(c))
			return
		}
	}
	writeJSON(w, http.StatusOK, channelLogJSON{GuildID: guild, ChannelID: channel})
}

// knownLog is the server and channel of a channel log route, when the
// page lists that channel (logged, or holding logged messages); anything
// else is answered 404.
func (s *Server) knownLog(w http.ResponseWriter, r *http.Request) (guild, channel string, ok bool) {
	guild, channel = r.PathValue("guild"), r.PathValue("channel")
	if snowflake.MatchString(guild) && snowflake.MatchString(channel) {
		cs, err := db.ChannelLogCounts(r.Context(), s.opts.Pool)
		if err != nil {
			s.internalError(w, r, err)
			return "", "", false
		}
		for _, c := range cs {
			if c.GuildID == guild && c.ChannelID == channel {
				return guild, channel, true
			}
		}
	}
	writeError(w, http.StatusNotFound, "そのチャンネルの記録はありません。")
	return "", "", false
}

var snowflake = regexp.MustCompile(`^[0-9]{1,20}$`)
