// Guild scheduled events: POST and GET /guilds/{id}/scheduled-events, the
// events it keeps, and the voice and stage channels they can be held in.

package discordtest

import (
	"encoding/json"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// ScheduledEvents returns the events created in guildID, in order.
func (s *Server) ScheduledEvents(guildID string) []discordgo.GuildScheduledEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []discordgo.GuildScheduledEvent
	for _, e := range s.events[guildID] {
		out = append(out, *e)
	}
	return out
}

// DenyBotInGuild takes perms from the bot in the whole of guildID (as a
// server admin would on its role): an event needs Create Events or Manage
// Events.
func (s *Server) DenyBotInGuild(guildID string, perms int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.guildDeny[guildID] |= perms
}

// AddVoiceChannel makes channelID a voice channel (a stage channel when
// stage) of guildID, as GET /channels/{id} reports it.
func (s *Server) AddVoiceChannel(channelID, guildID string, stage bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.channels[channelID] = true
	s.channelGuild[channelID] = guildID
	s.chanTypes[channelID] = discordgo.ChannelTypeGuildVoice
	if stage {
		s.chanTypes[channelID] = discordgo.ChannelTypeGuildStageVoice
	}
}

// eventRequest is the body of a create as Discord reads it.
type eventRequest struct {
	ChannelID          *string                                      `json:"channel_id"`
	Name               string                                       `json:"name"`
	Description        string                                       `json:"description"`
	ScheduledStartTime *time.Time                                   `json:"scheduled_start_time"`
	ScheduledEndTime   *time.Time                                   `json:"scheduled_end_time"`
	PrivacyLevel       discordgo.GuildScheduledEventPrivacyLevel    `json:"privacy_level"`
	EntityType         discordgo.GuildScheduledEventEntityType      `json:"entity_type"`
	EntityMetadata     *discordgo.GuildScheduledEventEntityMetadata `json:"entity_metadata"`
}

// createEventLocked answers POST /guilds/{id}/scheduled-events with
// Discord's checks: the bot's permission, a name of 1–100 characters, a
// start in the future, an end after it, a location and an end for an
// external event, a voice or stage channel of the guild for the others.
// s.mu is held.
func (s *Server) createEventLocked(guildID string, body json.RawMessage) response {
	if !s.knownGuildLocked(guildID) {
		return apiError(http.StatusNotFound, 10004, "Unknown Guild")
	}
	const either = discordgo.PermissionCreateEvents | discordgo.PermissionManageEvents
	if s.guildDeny[guildID]&either == either {
		return missingPermissions
	}
	var in eventRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return apiError(400, 50109, "The request body contains invalid JSON.")
	}
	invalid := func(what string) response { return apiError(400, 50035, "Invalid Form Body: "+what) }
	switch n := utf8.RuneCountInString(in.Name); {
	case n < 1 || n > 100:
		return invalid("name: Must be between 1 and 100 in length.")
	case in.PrivacyLevel != discordgo.GuildScheduledEventPrivacyLevelGuildOnly:
		return invalid("privacy_level: Value must be one of {2}.")
	case in.ScheduledStartTime == nil || !in.ScheduledStartTime.After(time.Now()):
		return invalid("scheduled_start_time: Cannot schedule event in the past.")
	case in.ScheduledEndTime != nil && !in.ScheduledEndTime.After(*in.ScheduledStartTime):
		return invalid("scheduled_end_time: Cannot be before the start time.")
	}
	channelID := ""
	if in.ChannelID != nil {
		channelID = *in.ChannelID
	}
	switch in.EntityType {
	case discordgo.GuildScheduledEventEntityTypeExternal:
		if in.EntityMetadata == nil || in.EntityMetadata.Location == "" || utf8.RuneCountInString(in.EntityMetadata.Location) > 100 {
			return invalid("entity_metadata.location: This field is required.")
		}
		if in.ScheduledEndTime == nil {
			return invalid("scheduled_end_time: This field is required.")
		}
		if channelID != "" {
			return invalid("channel_id: Must be null for external events.")
		}
	case discordgo.GuildScheduledEventEntityTypeVoice, discordgo.GuildScheduledEventEntityTypeStageInstance:
		want := discordgo.ChannelTypeGuildVoice
		if in.EntityType == discordgo.GuildScheduledEventEntityTypeStageInstance {
			want = discordgo.ChannelTypeGuildStageVoice
		}
		if t, ok := s.chanTypes[channelID]; !ok || t != want || s.channelGuild[channelID] != guildID {
			return invalid("channel_id: Invalid channel type.")
		}
	default:
		return invalid("entity_type: Value must be one of {1, 2, 3}.")
	}
	e := &discordgo.GuildScheduledEvent{ID: s.newIDLocked(), GuildID: guildID, ChannelID: channelID, CreatorID: botID,
		Name: in.Name, Description: in.Description, ScheduledStartTime: *in.ScheduledStartTime, ScheduledEndTime: in.ScheduledEndTime,
		PrivacyLevel: in.PrivacyLevel, Status: discordgo.GuildScheduledEventStatusScheduled, EntityType: in.EntityType}
	if in.EntityMetadata != nil {
		e.EntityMetadata = *in.EntityMetadata
	}
	s.events[guildID] = append(s.events[guildID], e)
	s.notifyLocked()
	return response{status: 200, body: e, lost: s.takeLossLocked(eventsKey(guildID))}
}

// listEventsLocked answers GET /guilds/{id}/scheduled-events: the guild's
// events, as created. s.mu is held.
func (s *Server) listEventsLocked(guildID string) response {
	if !s.knownGuildLocked(guildID) {
		return apiError(http.StatusNotFound, 10004, "Unknown Guild")
	}
	out := []*discordgo.GuildScheduledEvent{}
	out = append(out, s.events[guildID]...)
	return response{status: 200, body: out}
}
