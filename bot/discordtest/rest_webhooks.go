// Webhooks: AddWebhook and the routes that fetch a webhook and post a
// message through it.

package discordtest

import (
	"encoding/json"
	"net/http"

	"github.com/bwmarrin/discordgo"
)

// webhook is an incoming webhook of AddWebhook.
type webhook struct{ token, channelID string }

// AddWebhook registers a webhook that posts into channelID.
func (s *Server) AddWebhook(id, token, channelID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhooks[id] = webhook{token: token, channelID: channelID}
	s.channels[channelID] = true
}

// getWebhookLocked answers GET /webhooks/{id}/{token}. s.mu is held.
func (s *Server) getWebhookLocked(id, token string) response {
	wh, ok := s.webhooks[id]
	if !ok || wh.token != token {
		return apiError(http.StatusNotFound, 10015, "Unknown Webhook")
	}
	return response{status: 200, body: &discordgo.Webhook{ID: id, Type: discordgo.WebhookTypeIncoming, Name: "webhook-" + id,
		ChannelID: wh.channelID, GuildID: s.channelGuild[wh.channelID], Token: wh.token}}
}

// webhookLocked answers POST /webhooks/{id}/{token}; without ?wait=true
// that is 204 with no body, as Discord does. s.mu is held.
func (s *Server) webhookLocked(id, token string, wait bool, body json.RawMessage) response {
	wh, ok := s.webhooks[id]
	if !ok || wh.token != token {
		return apiError(http.StatusNotFound, 10015, "Unknown Webhook")
	}
	var in outgoing
	if err := json.Unmarshal(body, &in); err != nil {
		return apiError(400, 50109, "The request body contains invalid JSON.")
	}
	res := s.createLocked(wh.channelID, id, id, in)
	if res.status == 200 && !wait {
		res = response{status: http.StatusNoContent, msg: res.msg, body: nil}
	}
	if res.msg != nil {
		// LoseCreateResponses covers a webhook's posts in its channel too.
		res.lost = s.takeLossLocked(wh.channelID)
	}
	return res
}

// editWebhookMessageLocked answers PATCH /webhooks/{id}/{token}/messages/{message
// id}: an edit of a message the webhook posted. s.mu is held.
func (s *Server) editWebhookMessageLocked(id, token, messageID string, body json.RawMessage) response {
	wh, ok := s.webhooks[id]
	if !ok || wh.token != token {
		return apiError(http.StatusNotFound, 10015, "Unknown Webhook")
	}
	var in outgoing
	if err := json.Unmarshal(body, &in); err != nil {
		return apiError(400, 50109, "The request body contains invalid JSON.")
	}
	m, ok := s.messages[messageID]
	if !ok || m.WebhookID != id {
		return apiError(http.StatusNotFound, 10008, "Unknown Message")
	}
	if s.refusedEdits[m.ChannelID] {
		return apiError(http.StatusBadRequest, 50035, "Invalid Form Body")
	}
	return s.editLocked(m, in)
}
