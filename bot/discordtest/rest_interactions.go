// Application commands and interactions: the bulk overwrite of the
// commands, INTERACTION_CREATE, interaction callbacks, and what the
// interaction's token reaches (follow-ups, edits of @original).

package discordtest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
)

// interaction is an INTERACTION_CREATE the fake dispatched, as its
// callbacks and token are checked against.
type interaction struct {
	id        string
	typ       discordgo.InteractionType
	token     string
	channelID string
	messageID string // the message whose button was pressed
	// created is when the fake dispatched it: its first callback must come
	// within the deadline (SetInteractionDeadline).
	created time.Time
	// answer is the type of the accepted callback; 0 until there is one.
	answer discordgo.InteractionResponseType
	// original is the response message of a type 4 or 5 callback.
	original  *Message
	followups []*Message
}

// allowedAnswers are the callback types Discord accepts for each type of
// interaction dispatched over the gateway.
var allowedAnswers = map[discordgo.InteractionType][]discordgo.InteractionResponseType{
	discordgo.InteractionApplicationCommand: {
		discordgo.InteractionResponseChannelMessageWithSource, discordgo.InteractionResponseDeferredChannelMessageWithSource,
		discordgo.InteractionResponseModal,
	},
	discordgo.InteractionApplicationCommandAutocomplete: {discordgo.InteractionApplicationCommandAutocompleteResult},
	discordgo.InteractionMessageComponent: {
		discordgo.InteractionResponseChannelMessageWithSource, discordgo.InteractionResponseDeferredChannelMessageWithSource,
		discordgo.InteractionResponseDeferredMessageUpdate, discordgo.InteractionResponseUpdateMessage,
		discordgo.InteractionResponseModal,
	},
	discordgo.InteractionModalSubmit: {
		discordgo.InteractionResponseChannelMessageWithSource, discordgo.InteractionResponseDeferredChannelMessageWithSource,
		discordgo.InteractionResponseDeferredMessageUpdate, discordgo.InteractionResponseUpdateMessage,
	},
}

// interactionDeadline is how long after an interaction Discord accepts its
// first callback.
const interactionDeadline = 3 * time.Second

// SetInteractionDeadline sets how long after it was dispatched an
// interaction's first callback is accepted (Discord's 3 seconds by
// default); a later one is refused with 404 Unknown interaction (10062),
// as Discord refuses it. A test shortens it so as not to wait 3 seconds.
func (s *Server) SetInteractionDeadline(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answerWithin = d
}

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

// InteractionResponses returns the interaction callbacks accepted so far
// (a refused one is only in Calls, with its status).
func (s *Server) InteractionResponses() []InteractionResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]InteractionResponse(nil), s.responses...)
}

// Followups returns the follow-up messages sent with the token of the
// interaction, ephemeral ones too (which are in no channel's Messages), in
// order and as edited since.
func (s *Server) Followups(interactionID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	if in, ok := s.interactions[interactionID]; ok {
		for _, m := range in.followups {
			out = append(out, *m)
		}
	}
	return out
}

// Original returns the response message of an interaction answered with a
// message (callback type 4 or 5), as edited since; ok is false before then.
// After a type 6 or 7 the original is the pressed message: see Messages.
func (s *Server) Original(interactionID string) (m Message, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.interactions[interactionID]
	if !ok || in.original == nil {
		return Message{}, false
	}
	return *in.original, true
}

// SendInteraction dispatches INTERACTION_CREATE to connected clients.
// Empty ID and AppID are filled in. Its callbacks are checked as Discord
// checks them: one only, of a type that fits the interaction, within the
// deadline (SetInteractionDeadline).
func (s *Server) SendInteraction(i *discordgo.Interaction) {
	if i.ID == "" {
		i.ID = s.NewID()
	}
	if i.AppID == "" {
		i.AppID = appID
	}
	s.mu.Lock()
	s.trackLocked(i)
	s.mu.Unlock()
	s.Dispatch("INTERACTION_CREATE", i)
}

// trackLocked remembers i for its callbacks and its token. s.mu is held.
func (s *Server) trackLocked(i *discordgo.Interaction) {
	in := &interaction{id: i.ID, typ: i.Type, token: i.Token, channelID: i.ChannelID, created: time.Now()}
	if i.Message != nil {
		in.messageID = i.Message.ID
	}
	if s.interactions == nil {
		s.interactions = map[string]*interaction{}
	}
	s.interactions[i.ID] = in
}

// byTokenLocked is the latest interaction dispatched with token (tests may
// reuse one). s.mu is held.
func (s *Server) byTokenLocked(token string) (*interaction, bool) {
	var found *interaction
	for _, in := range s.interactions {
		if in.token == token && (found == nil || snowflakeLess(found.id, in.id)) {
			found = in
		}
	}
	return found, found != nil
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
	if res, ok := badInstallContexts(cmds); ok {
		return res
	}
	for _, c := range cmds {
		c.ID, c.ApplicationID = s.newIDLocked(), applicationID
	}
	s.commands = cmds
	return response{status: 200, body: cmds}
}

// interactionCallbackLocked answers POST
// /interactions/{id}/{token}/callback: the first answer of an interaction
// the fake dispatched, of a type that fits it. A type 7 updates the pressed
// message; a type 4 or 5 makes the original response. s.mu is held.
func (s *Server) interactionCallbackLocked(id, token string, body json.RawMessage) response {
	var raw struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data json.RawMessage                   `json:"data"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return apiError(400, 50109, "The request body contains invalid JSON.")
	}
	in, ok := s.interactions[id]
	if !ok || in.token != token {
		return apiError(http.StatusNotFound, 10062, "Unknown interaction")
	}
	if in.answer != 0 {
		return apiError(http.StatusBadRequest, 40060, "Interaction has already been acknowledged.")
	}
	within := s.answerWithin
	if within <= 0 {
		within = interactionDeadline
	}
	if time.Since(in.created) > within {
		return apiError(http.StatusNotFound, 10062, "Unknown interaction")
	}
	if !allowedAnswer(in.typ, raw.Type) {
		return invalidForm("type", "This response type is not allowed for this interaction.")
	}
	ir := discordgo.InteractionResponse{Type: raw.Type}
	var data outgoing
	if len(raw.Data) > 0 && string(raw.Data) != "null" {
		// The components are kept raw by outgoing and decoded apart, as
		// discordgo's response data cannot decode them.
		var d struct {
			discordgo.InteractionResponseData
			Components json.RawMessage `json:"components"`
		}
		if err := json.Unmarshal(raw.Data, &d); err != nil {
			return apiError(400, 50109, "The request body contains invalid JSON.")
		}
		if err := json.Unmarshal(raw.Data, &data); err != nil {
			return apiError(400, 50109, "The request body contains invalid JSON.")
		}
		ir.Data = &d.InteractionResponseData
		comps, _, err := decodeComponents(d.Components)
		if err != nil {
			return invalidForm("data.components", err.Error())
		}
		ir.Data.Components = comps
	}
	var res response
	switch raw.Type {
	case discordgo.InteractionResponseChannelMessageWithSource:
		res = s.createResponseLocked(in, data)
	case discordgo.InteractionResponseDeferredChannelMessageWithSource:
		in.original = &Message{ID: s.newIDLocked(), ChannelID: in.channelID, AuthorID: botID, WebhookID: appID, Flags: data.Flags}
		if data.Flags&discordgo.MessageFlagsEphemeral != 0 {
			if s.ephemeral == nil {
				s.ephemeral = map[string]*Message{}
			}
			s.ephemeral[in.original.ID] = in.original
		}
	case discordgo.InteractionResponseUpdateMessage:
		m, ok := s.pressableLocked(in.messageID)
		if !ok {
			return apiError(http.StatusNotFound, 10008, "Unknown Message")
		}
		res = s.editLocked(m, data)
	}
	if res.status != 0 && res.status != http.StatusOK {
		return res
	}
	in.answer = raw.Type
	s.responses = append(s.responses, InteractionResponse{InteractionID: id, Token: token, Response: ir})
	return response{status: http.StatusNoContent, msg: res.msg}
}

func allowedAnswer(typ discordgo.InteractionType, answer discordgo.InteractionResponseType) bool {
	for _, a := range allowedAnswers[typ] {
		if a == answer {
			return true
		}
	}
	return false
}

// createResponseLocked makes the message of a type 4 callback: in the
// channel unless it is ephemeral. s.mu is held.
func (s *Server) createResponseLocked(in *interaction, data outgoing) response {
	if data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		res := s.ephemeralLocked(in, data)
		if res.status == http.StatusOK {
			in.original = res.msg
		}
		return res
	}
	res := s.createLocked(in.channelID, botID, appID, data)
	if res.status == http.StatusOK {
		in.original = res.msg
	}
	return res
}

// ephemeralLocked makes a message only the interaction's user sees: it is
// in no channel. s.mu is held.
func (s *Server) ephemeralLocked(in *interaction, data outgoing) response {
	content := ""
	if data.Content != nil {
		content = *data.Content
	}
	if r := checkContent(content, len(data.Embeds)+len(s.uploads)); r.status != 0 {
		return r
	}
	comps, _, res := checkedComponents(data.Components)
	if res.status != 0 {
		return res
	}
	m := &Message{
		ID: s.newIDLocked(), ChannelID: in.channelID, AuthorID: botID, WebhookID: appID, Content: content,
		AllowedMentions: data.AllowedMentions, Components: comps, Flags: data.Flags, CreatedAt: time.Now(),
		Attachments: s.uploads,
	}
	if s.ephemeral == nil {
		s.ephemeral = map[string]*Message{}
	}
	s.ephemeral[m.ID] = m
	return response{status: http.StatusOK, msg: m}
}

// pressableLocked is the message id whose buttons can be pressed: one in
// a channel, or an ephemeral one. s.mu is held.
func (s *Server) pressableLocked(id string) (*Message, bool) {
	if m, ok := s.messages[id]; ok {
		return m, true
	}
	m, ok := s.ephemeral[id]
	return m, ok
}

// followupLocked answers POST /webhooks/{app}/{token}: a follow-up message
// of an answered interaction; without ?wait=true that is 204. s.mu is
// held.
func (s *Server) followupLocked(token string, wait bool, body json.RawMessage) response {
	in, ok := s.byTokenLocked(token)
	if !ok || in.answer == 0 {
		return apiError(http.StatusNotFound, 10015, "Unknown Webhook")
	}
	var data outgoing
	if err := json.Unmarshal(body, &data); err != nil {
		return apiError(400, 50109, "The request body contains invalid JSON.")
	}
	var res response
	if data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		res = s.ephemeralLocked(in, data)
	} else {
		res = s.createLocked(in.channelID, botID, appID, data)
	}
	if res.status != http.StatusOK {
		return res
	}
	in.followups = append(in.followups, res.msg)
	if !wait {
		return response{status: http.StatusNoContent, msg: res.msg}
	}
	return res
}

// editInteractionMessageLocked answers PATCH
// /webhooks/{app}/{token}/messages/{id}: id @original is the response
// message, or after a type 6 or 7 the pressed message; else a follow-up.
// s.mu is held.
func (s *Server) editInteractionMessageLocked(token, messageID string, body json.RawMessage) response {
	in, ok := s.byTokenLocked(token)
	if !ok {
		return apiError(http.StatusNotFound, 10015, "Unknown Webhook")
	}
	var data outgoing
	if err := json.Unmarshal(body, &data); err != nil {
		return apiError(400, 50109, "The request body contains invalid JSON.")
	}
	var m *Message
	switch {
	case messageID != "@original":
		for _, f := range in.followups {
			if f.ID == messageID {
				m = f
			}
		}
	case in.answer == discordgo.InteractionResponseDeferredMessageUpdate || in.answer == discordgo.InteractionResponseUpdateMessage:
		m, _ = s.pressableLocked(in.messageID)
	default:
		m = in.original
	}
	if m == nil {
		return apiError(http.StatusNotFound, 10008, "Unknown Message")
	}
	return s.editLocked(m, data)
}

// badInstallContexts is the 400 Discord answers a command whose
// integration_types are not guild (0) and user (1) installs, or whose
// contexts are not guild (0), bot DM (1) and private channel (2); ok is
// false when every command's are valid. Both lists are kept as given and
// Commands returns them.
func badInstallContexts(cmds []*discordgo.ApplicationCommand) (res response, ok bool) {
	for i, c := range cmds {
		field := ""
		if c.IntegrationTypes != nil {
			for _, t := range *c.IntegrationTypes {
				if t > discordgo.ApplicationIntegrationUserInstall {
					field = "integration_types"
				}
			}
		}
		if c.Contexts != nil {
			for _, x := range *c.Contexts {
				if x > discordgo.InteractionContextPrivateChannel {
					field = "contexts"
				}
			}
		}
		if field != "" {
			return response{status: http.StatusBadRequest, body: map[string]any{
				"code": 50035, "message": "Invalid Form Body",
				"errors": map[string]any{strconv.Itoa(i): map[string]any{field: map[string]any{"0": map[string]any{
					"_errors": []map[string]string{{"code": "ENUM_TYPE_COERCE", "message": "Value is not a valid enum value."}},
				}}}},
			}}, true
		}
	}
	return response{}, false
}
