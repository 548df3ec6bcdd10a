// Threads started from a message and the bot's own reactions: the routes
// POST /channels/{id}/messages/{id}/threads and PUT/DELETE
// /channels/{id}/messages/{id}/reactions/{emoji}/@me.

package discordtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// maxThreadName is Discord's limit of a thread's name, in characters.
const maxThreadName = 100

// Thread is a thread as the fake keeps it.
type Thread struct {
	ID, ParentID, Name string
}

// Thread returns the thread id started with POST
// /channels/{parent}/messages/{id}/threads (or AddThread), and whether
// there is one.
func (s *Server) Thread(id string) (Thread, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	parent, ok := s.threads[id]
	return Thread{ID: id, ParentID: parent, Name: s.threadNames[id]}, ok
}

// Reactions returns the reactions the bot has on message id now, in the
// order it added them.
func (s *Server) Reactions(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.messages[id]; ok {
		return append([]string(nil), m.Reactions...)
	}
	return nil
}

// ReactionLog returns every reaction the bot added ("+⏳") or removed
// ("-⏳") on message id, in order, refused ones included.
func (s *Server) ReactionLog(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reactionLog[id]...)
}

// deniedLocked reports whether DenyBot denied the bot perm in channelID
// (or, for a thread, in its parent). s.mu is held.
func (s *Server) deniedLocked(channelID string, perm int64) bool {
	for _, id := range []string{channelID, s.threads[channelID]} {
		for _, o := range s.overwrites[id] {
			if o.ID == botID && o.Deny&perm != 0 {
				return true
			}
		}
	}
	return false
}

var missingPermissions = apiError(http.StatusForbidden, 50013, "Missing Permissions")

// messageRouteLocked answers the thread and reaction routes of message
// rest[1] in channelID; ok is false for any other route. s.mu is held.
func (s *Server) messageRouteLocked(method, channelID string, rest []string, body json.RawMessage) (response, bool) {
	if len(rest) < 3 || rest[0] != "messages" {
		return response{}, false
	}
	m, found := s.messages[rest[1]]
	switch {
	case len(rest) == 3 && rest[2] == "threads" && method == http.MethodPost:
		if !found || m.ChannelID != channelID {
			return apiError(http.StatusNotFound, 10008, "Unknown Message"), true
		}
		return s.startThreadLocked(m, body), true
	case len(rest) == 5 && rest[2] == "reactions" && rest[4] == "@me" && (method == http.MethodPut || method == http.MethodDelete):
		if !found || m.ChannelID != channelID {
			return apiError(http.StatusNotFound, 10008, "Unknown Message"), true
		}
		emoji := rest[3]
		sign := "+"
		if method == http.MethodDelete {
			sign = "-"
		}
		s.reactionLog[m.ID] = append(s.reactionLog[m.ID], sign+emoji)
		if method == http.MethodPut {
			// Adding needs Add Reactions (unless someone reacted so
			// already); removing one's own never does.
			if s.deniedLocked(channelID, discordgo.PermissionAddReactions) {
				return missingPermissions, true
			}
			if !slices.Contains(m.Reactions, emoji) {
				m.Reactions = append(m.Reactions, emoji)
			}
		} else {
			m.Reactions = slices.DeleteFunc(m.Reactions, func(e string) bool { return e == emoji })
		}
		return response{status: http.StatusNoContent}, true
	}
	return response{}, false
}

// startThreadLocked starts a public thread from m, as Discord does: the
// thread's id is the message's, its name 1 to 100 characters, one thread
// per message. s.mu is held.
func (s *Server) startThreadLocked(m *Message, body json.RawMessage) response {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return apiError(400, 50109, "The request body contains invalid JSON.")
	}
	if n := utf8.RuneCountInString(in.Name); n == 0 || n > maxThreadName || strings.TrimSpace(in.Name) == "" {
		return apiError(400, 50035, "Invalid Form Body: name: Must be between 1 and 100 in length.")
	}
	if s.deniedLocked(m.ChannelID, discordgo.PermissionCreatePublicThreads) {
		return missingPermissions
	}
	if _, ok := s.threads[m.ID]; ok {
		return apiError(400, 160004, "A thread has already been created for this message")
	}
	s.channels[m.ID] = true
	s.threads[m.ID] = m.ChannelID
	s.threadNames[m.ID] = in.Name
	if g, ok := s.channelGuild[m.ChannelID]; ok {
		s.channelGuild[m.ID] = g
	}
	return response{status: 201, body: &discordgo.Channel{
		ID: m.ID, Type: discordgo.ChannelTypeGuildPublicThread, Name: in.Name,
		ParentID: m.ChannelID, GuildID: s.channelGuild[m.ChannelID],
	}}
}
