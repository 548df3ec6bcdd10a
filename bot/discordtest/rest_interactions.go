// Application commands and interactions: the bulk overwrite of the
// commands, interaction callbacks, and INTERACTION_CREATE.

package discordtest

import (
	"encoding/json"
	"net/http"

	"github.com/bwmarrin/discordgo"
)

// InteractionResponse is one interaction callback the bot made.
type InteractionResponse struct {
	InteractionID string
	Token         string
	Response      discordgo.InteractionResponse
}

// Commands returns the application commands last bulk-overwritten.
func (s *Server) Commands() []*discordgo.ApplicationCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*discordgo.ApplicationCommand(nil), s.commands...)
}

// InteractionResponses returns the interaction callbacks received so far.
func (s *Server) InteractionResponses() []InteractionResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]InteractionResponse(nil), s.responses...)
}

// SendInteraction dispatches INTERACTION_CREATE to connected clients.
func (s *Server) SendInteraction(i *discordgo.Interaction) {
	if i.ID == "" {
		i.ID = s.NewID()
	}
	if i.AppID == "" {
		i.AppID = appID
	}
	s.Dispatch("INTERACTION_CREATE", i)
}

// putCommandsLocked answers PUT /applications/{id}/commands, the bulk
// overwrite. s.mu is held.
func (s *Server) putCommandsLocked(applicationID string, body json.RawMessage) response {
	var cmds []*discordgo.ApplicationCommand
	if err := json.Unmarshal(body, &cmds); err != nil {
		return apiError(400, 50109, "The request body contains invalid JSON.")
	}
	if res, ok := s.refusedCommandLocked(cmds); ok {
		return res
	}
	for _, c := range cmds {
		c.ID, c.ApplicationID = s.newIDLocked(), applicationID
	}
	s.commands = cmds
	return response{status: 200, body: cmds}
}

// interactionCallbackLocked answers POST
// /interactions/{id}/{token}/callback. s.mu is held.
func (s *Server) interactionCallbackLocked(id, token string, body json.RawMessage) response {
	var ir discordgo.InteractionResponse
	if err := json.Unmarshal(body, &ir); err != nil {
		return apiError(400, 50109, "The request body contains invalid JSON.")
	}
	s.responses = append(s.responses, InteractionResponse{InteractionID: id, Token: token, Response: ir})
	return response{status: http.StatusNoContent}
}
