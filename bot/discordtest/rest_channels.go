// Channels, threads, servers and members: what a test makes known, and the
// GET routes that report it.

package discordtest

import (
	"net/http"

	"github.com/bwmarrin/discordgo"
)

// DefaultGuildID is the server the fake's bot is in unless SetGuilds says
// otherwise.
const DefaultGuildID = "900000000000000001"

// EveryonePermissions are what the fake's @everyone role allows in every
// server: View Channels, Send Messages, Send Messages in Threads, Read
// Message History and Attach Files. The bot has no other role.
const EveryonePermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages |
	discordgo.PermissionSendMessagesInThreads | discordgo.PermissionReadMessageHistory | discordgo.PermissionAttachFiles

// AddChannel makes a channel known, so sends to it succeed.
func (s *Server) AddChannel(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.channels[id] = true
}

// AddThread makes a thread of parentID known: sends to it succeed and GET
// /channels/{id} reports it as a public thread with its parent.
func (s *Server) AddThread(id, parentID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.channels[id] = true
	s.threads[id] = parentID
}

// PutChannelInGuild makes channelID (added with AddChannel) a text channel
// of guildID, as GET /channels/{id} reports it; GET /guilds/{id} then
// answers with the @everyone role (EveryonePermissions) and GET
// /guilds/{id}/members/{bot} with the bot. Channels are in no server
// otherwise.
func (s *Server) PutChannelInGuild(channelID, guildID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.channelGuild[channelID] = guildID
}

// DenyBot adds a permission overwrite to channelID that denies the bot
// perms there (as a server admin would in the channel's settings).
func (s *Server) DenyBot(channelID string, perms int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overwrites[channelID] = append(s.overwrites[channelID], &discordgo.PermissionOverwrite{
		ID: botID, Type: discordgo.PermissionOverwriteTypeMember, Deny: perms,
	})
}

// DenyMember adds a permission overwrite to channelID that denies userID
// perms there.
func (s *Server) DenyMember(channelID, userID string, perms int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overwrites[channelID] = append(s.overwrites[channelID], &discordgo.PermissionOverwrite{
		ID: userID, Type: discordgo.PermissionOverwriteTypeMember, Deny: perms,
	})
}

// AddMember makes userID a member of guildID, as GET
// /guilds/{guild}/members/{user} reports it (others are Unknown Member).
func (s *Server) AddMember(guildID, userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.members == nil {
		s.members = map[string]bool{}
	}
	s.members[guildID+"/"+userID] = true
}

// SetName names a server, channel or thread as GUILD_CREATE and GET
// /channels/{id} and /guilds/{id} report it; unnamed ones are called
// "guild <id>", "channel-<id>" and "thread-<id>".
func (s *Server) SetName(id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.names[id] = name
}

// nameLocked is id's name, or def. s.mu is held.
func (s *Server) nameLocked(id, def string) string {
	if n, ok := s.names[id]; ok {
		return n
	}
	return def
}

// SetGuilds sets the servers the bot is in, as READY reports them; none
// means the bot was never invited anywhere.
func (s *Server) SetGuilds(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.guilds = append([]string(nil), ids...)
}

// JoinGuild adds the bot to a server and dispatches GUILD_CREATE, as when
// someone follows the invite link.
func (s *Server) JoinGuild(id string) {
	s.mu.Lock()
	s.guilds = append(s.guilds, id)
	name := s.nameLocked(id, "guild "+id)
	s.notifyLocked()
	s.mu.Unlock()
	s.Dispatch("GUILD_CREATE", map[string]any{"id": id, "name": name, "unavailable": false})
}

// getChannelLocked answers GET /channels/{id}. s.mu is held.
func (s *Server) getChannelLocked(id string) response {
	if f, ok := s.failures[id]; ok {
		return apiError(f.status, f.code, f.message)
	}
	if !s.channels[id] {
		return apiError(http.StatusNotFound, 10003, "Unknown Channel")
	}
	ch := &discordgo.Channel{ID: id, Type: discordgo.ChannelTypeGuildText, Name: s.nameLocked(id, "channel-"+id),
		GuildID: s.channelGuild[id], PermissionOverwrites: s.overwrites[id]}
	if t, ok := s.chanTypes[id]; ok {
		ch.Type = t
	}
	if parent, ok := s.threads[id]; ok {
		ch.Type, ch.Name, ch.ParentID = discordgo.ChannelTypeGuildPublicThread, s.nameLocked(id, "thread-"+id), parent
	}
	return response{status: 200, body: ch}
}

// getGuildLocked answers GET /guilds/{id}. s.mu is held.
func (s *Server) getGuildLocked(id string) response {
	if !s.knownGuildLocked(id) {
		return apiError(http.StatusNotFound, 10004, "Unknown Guild")
	}
	return response{status: 200, body: &discordgo.Guild{ID: id, Name: s.nameLocked(id, "guild-"+id), OwnerID: "1",
		Roles: []*discordgo.Role{{ID: id, Name: "@everyone", Permissions: EveryonePermissions}}}}
}

// getBotMemberLocked answers GET /guilds/{id}/members/{bot}. s.mu is held.
func (s *Server) getBotMemberLocked(guildID string) response {
	if !s.knownGuildLocked(guildID) {
		return apiError(http.StatusNotFound, 10004, "Unknown Guild")
	}
	return response{status: 200, body: &discordgo.Member{GuildID: guildID, User: &discordgo.User{ID: botID, Username: botName, Bot: true}, Roles: []string{}}}
}

// getMemberLocked answers GET /guilds/{id}/members/{user} for any user
// but the bot. s.mu is held.
func (s *Server) getMemberLocked(guildID, userID string) response {
	if !s.members[guildID+"/"+userID] {
		return apiError(http.StatusNotFound, 10007, "Unknown Member")
	}
	return response{status: 200, body: &discordgo.Member{GuildID: guildID, User: &discordgo.User{ID: userID}}}
}

// knownGuildLocked reports whether the bot is in guildID or a channel was
// put in it. s.mu is held.
func (s *Server) knownGuildLocked(guildID string) bool {
	for _, g := range s.guilds {
		if g == guildID {
			return true
		}
	}
	for _, g := range s.channelGuild {
		if g == guildID {
			return true
		}
	}
	return false
}
