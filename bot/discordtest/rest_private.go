// Where yorozu is not a member: group DMs that a user, having installed
// yorozu to their account, uses its commands in; message commands with
// the resolved message Discord sends along; and the DM channel the bot
// opens with a user (POST /users/@me/channels).

package discordtest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
)

// AddGroupDM makes channelID a group DM yorozu is not in: every REST call
// on it (reading a message or the history, posting, typing) answers 403
// Missing Access (50001), as Discord answers a bot that is not a member,
// while the interactions used there are answered through their own token
// as usual. Interactions in it (SubmitModal, PressButton,
// UseMessageCommand) come with context 2 (private channel) and the user's
// install as their authorizing integration owner.
func (s *Server) AddGroupDM(channelID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groupDMs == nil {
		s.groupDMs = map[string]bool{}
	}
	s.groupDMs[channelID] = true
	s.failures[channelID] = failure{status: http.StatusForbidden, code: 50001, message: "Missing Access"}
}

// PostInGroupDM stores m as a member's message in a group DM (AddGroupDM)
// without dispatching it: yorozu is not there to receive it. Empty ID and
// Timestamp are filled in; a reply keeps its MessageReference.
func (s *Server) PostInGroupDM(m *discordgo.Message) *discordgo.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.ID == "" {
		m.ID = s.newIDLocked()
	}
	if m.Timestamp.IsZero() {
		m.Timestamp = time.Now()
	}
	authorID, authorName := "", ""
	if m.Author != nil {
		authorID, authorName = m.Author.ID, m.Author.Username
	}
	s.storeLocked(&Message{ID: m.ID, ChannelID: m.ChannelID, AuthorID: authorID, AuthorName: authorName, Content: m.Content,
		CreatedAt: m.Timestamp, Reference: m.MessageReference, Attached: m.Attachments})
	return m
}

// UseMessageCommand is user using the message command name (Apps → name)
// on message targetID of channelID: it dispatches INTERACTION_CREATE of
// type 2 as Discord does, with the message in data.resolved.messages (and
// the message it replies to as its referenced_message), and returns the
// interaction as discordgo reads it. The channel and perms are as for
// PressButton; in a group DM (AddGroupDM) as there.
func (s *Server) UseMessageCommand(channelID, name, targetID string, user *discordgo.User, perms int64) *discordgo.Interaction {
	s.t.Helper()
	s.mu.Lock()
	m, ok := s.messages[targetID]
	if !ok || m.ChannelID != channelID {
		s.mu.Unlock()
		s.t.Fatalf("discordtest: %s: no message %s in channel %s", name, targetID, channelID)
		return nil
	}
	payload := s.interactionPayloadLocked(channelID, user, perms)
	payload["type"] = discordgo.InteractionApplicationCommand
	payload["data"] = map[string]any{
		"id": s.newIDLocked(), "name": name, "type": discordgo.MessageApplicationCommand, "target_id": targetID,
		"resolved": map[string]any{"messages": map[string]any{targetID: s.fetchedMessage(m)}},
	}
	s.mu.Unlock()
	return s.dispatchInteraction(payload, "message command "+name)
}

// privateLocked reports whether channelID is a group DM yorozu is not in.
// s.mu is held.
func (s *Server) privateLocked(channelID string) bool { return s.groupDMs[channelID] }

// DMChannel returns the id of the DM channel the bot opened with userID
// (POST /users/@me/channels); ok is false when it opened none.
func (s *Server) DMChannel(userID string) (id string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok = s.dms[userID]
	return id, ok
}

// createDMLocked answers POST /users/@me/channels: the DM channel with the
// recipient, the same one every time, which the bot may then post in.
// s.mu is held.
func (s *Server) createDMLocked(body json.RawMessage) response {
	var in struct {
		RecipientID string `json:"recipient_id"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.RecipientID == "" {
		return apiError(http.StatusBadRequest, 50035, "Invalid Form Body: recipient_id: This field is required")
	}
	if s.dms == nil {
		s.dms = map[string]string{}
	}
	id, ok := s.dms[in.RecipientID]
	if !ok {
		id = s.newIDLocked()
		s.dms[in.RecipientID] = id
		s.channels[id] = true
	}
	return response{status: http.StatusOK, body: &discordgo.Channel{ID: id, Type: discordgo.ChannelTypeDM,
		Recipients: []*discordgo.User{{ID: in.RecipientID}}}}
}
