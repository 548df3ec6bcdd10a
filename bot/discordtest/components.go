// Message components: the action rows and buttons a message carries, as
// Discord checks them, and PressButton, a user pressing one.

package discordtest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// Discord's limits on a message's components (without the components v2
// flag, which the fake does not model).
const (
	maxRows        = 5
	maxRowButtons  = 5
	maxCustomID    = 100
	maxButtonLabel = 80
)

// Buttons returns the buttons of m's action rows, in order.
func (m Message) Buttons() []*discordgo.Button {
	var out []*discordgo.Button
	for _, c := range m.Components {
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, rc := range row.Components {
			if b, ok := rc.(*discordgo.Button); ok {
				out = append(out, b)
			}
		}
	}
	return out
}

// decodeComponents reads a components array as discordgo does; present is
// false when raw is absent or null.
func decodeComponents(raw json.RawMessage) (comps []discordgo.MessageComponent, present bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, nil
	}
	// discordgo decodes components only as fields of its own types.
	var m discordgo.Message
	if err := json.Unmarshal([]byte(`{"components":`+string(raw)+`}`), &m); err != nil {
		return nil, true, err
	}
	return m.Components, true, nil
}

// checkedComponents decodes raw and checks it as Discord does; replace is
// false when raw leaves a message's components as they are.
func checkedComponents(raw json.RawMessage) (comps []discordgo.MessageComponent, replace bool, res response) {
	comps, replace, err := decodeComponents(raw)
	if err != nil {
		return nil, false, invalidForm("components", err.Error())
	}
	if !replace {
		return nil, false, response{}
	}
	if len(comps) > maxRows {
		return nil, false, invalidForm("components", fmt.Sprintf("Must be %d or fewer in length.", maxRows))
	}
	ids := map[string]bool{}
	for i, c := range comps {
		row, ok := c.(*discordgo.ActionsRow)
		field := "components." + strconv.Itoa(i)
		if !ok {
			return nil, false, invalidForm(field+".type", "Only action rows may be at the top level.")
		}
		if len(row.Components) == 0 || len(row.Components) > maxRowButtons {
			return nil, false, invalidForm(field+".components", fmt.Sprintf("Must be between 1 and %d in length.", maxRowButtons))
		}
		for j, rc := range row.Components {
			b, ok := rc.(*discordgo.Button)
			if !ok {
				return nil, false, invalidForm(field+".components."+strconv.Itoa(j)+".type", "The fake knows only buttons in action rows.")
			}
			if r := checkButton(b, field+".components."+strconv.Itoa(j), ids); r.status != 0 {
				return nil, false, r
			}
		}
	}
	if comps == nil {
		comps = []discordgo.MessageComponent{}
	}
	return comps, true, response{}
}

// checkButton is Discord's check of one button; ids are the custom ids
// seen so far in the message, which must be unique.
func checkButton(b *discordgo.Button, field string, ids map[string]bool) response {
	if b.Label == "" && b.Emoji == nil {
		return invalidForm(field+".label", "A button needs a label or an emoji.")
	}
	if utf8.RuneCountInString(b.Label) > maxButtonLabel {
		return invalidForm(field+".label", fmt.Sprintf("Must be %d or fewer in length.", maxButtonLabel))
	}
	switch b.Style {
	case discordgo.PrimaryButton, discordgo.SecondaryButton, discordgo.SuccessButton, discordgo.DangerButton:
		if b.CustomID == "" || b.URL != "" {
			return invalidForm(field+".custom_id", "A non-link button must have a custom_id, and cannot have a url.")
		}
		if utf8.RuneCountInString(b.CustomID) > maxCustomID {
			return invalidForm(field+".custom_id", fmt.Sprintf("Must be between 1 and %d in length.", maxCustomID))
		}
		if ids[b.CustomID] {
			return invalidForm(field+".custom_id", "Component custom id cannot be duplicated.")
		}
		ids[b.CustomID] = true
	case discordgo.LinkButton:
		if b.URL == "" || b.CustomID != "" {
			return invalidForm(field+".url", "A link button must have a url, and cannot have a custom_id.")
		}
	default:
		return invalidForm(field+".style", "Value must be one of (1, 2, 3, 4, 5).")
	}
	return response{}
}

// invalidForm is Discord's 400 Invalid Form Body naming the field.
func invalidForm(field, reason string) response {
	return apiError(400, 50035, "Invalid Form Body: "+field+": "+reason)
}

// wireComponents is m's components as Discord sends them: [] when it has
// none.
func wireComponents(m *Message) []discordgo.MessageComponent {
	if m.Components == nil {
		return []discordgo.MessageComponent{}
	}
	return m.Components
}

// PressButton is userID pressing the button with customID on message
// messageID (an ephemeral one too, which only its user sees, though
// anyone's press of it can be scripted): it dispatches INTERACTION_CREATE of type 3 (message
// component) as Discord does, with a fresh id and token, and returns the
// interaction as discordgo reads it. In a channel of a server
// (PutChannelInGuild) the user comes as a member whose permissions in the
// channel are perms (discordgo.PermissionAdministrator for an
// administrator); in any other channel, a DM, as the user, and perms is
// unused. The message must carry an enabled, non-link button with
// customID, or the test fails.
func (s *Server) PressButton(channelID, messageID, customID string, user *discordgo.User, perms int64) *discordgo.Interaction {
	s.t.Helper()
	s.mu.Lock()
	m, ok := s.pressableLocked(messageID)
	if !ok || m.ChannelID != channelID {
		s.mu.Unlock()
		s.t.Fatalf("discordtest: press %q: no message %s in channel %s", customID, messageID, channelID)
		return nil
	}
	if !pressable(m, customID) {
		s.mu.Unlock()
		s.t.Fatalf("discordtest: press %q: message %s has no such button that can be pressed", customID, messageID)
		return nil
	}
	payload := s.pressPayloadLocked(m, customID, user, perms)
	s.mu.Unlock()
	return s.dispatchInteraction(payload, "press "+customID)
}

// DoublePress is userID pressing the button twice before yorozu answered
// the first press (a double tap, or two devices): both interactions carry
// the message as it was, buttons and all. The message must carry the
// button, as for PressButton.
func (s *Server) DoublePress(channelID, messageID, customID string, user *discordgo.User, perms int64) [2]*discordgo.Interaction {
	s.t.Helper()
	s.mu.Lock()
	m, ok := s.messages[messageID]
	if !ok || m.ChannelID != channelID || !pressable(m, customID) {
		s.mu.Unlock()
		s.t.Fatalf("discordtest: double press %q: message %s in channel %s has no such button that can be pressed", customID, messageID, channelID)
		return [2]*discordgo.Interaction{}
	}
	first, second := s.pressPayloadLocked(m, customID, user, perms), s.pressPayloadLocked(m, customID, user, perms)
	s.mu.Unlock()
	return [2]*discordgo.Interaction{s.dispatchInteraction(first, "press "+customID), s.dispatchInteraction(second, "press "+customID)}
}

// pressPayloadLocked is the INTERACTION_CREATE of a press of customID on m
// by user. s.mu is held.
func (s *Server) pressPayloadLocked(m *Message, customID string, user *discordgo.User, perms int64) map[string]any {
	payload := s.interactionPayloadLocked(m.ChannelID, user, perms)
	payload["type"] = discordgo.InteractionMessageComponent
	payload["data"] = map[string]any{"custom_id": customID, "component_type": discordgo.ButtonComponent}
	payload["message"] = listedMessage{Message: s.wireMessage(m), Nonce: m.Nonce, Components: wireComponents(m)}
	return payload
}

// SubmitModal is userID submitting the modal customID with the text
// inputs' values by their custom ids: it dispatches INTERACTION_CREATE of
// type 5 (modal submit) as Discord does, each input in its own action row,
// and returns the interaction as discordgo reads it. The channel and
// perms are as for PressButton.
func (s *Server) SubmitModal(channelID, customID string, values map[string]string, user *discordgo.User, perms int64) *discordgo.Interaction {
	s.t.Helper()
	s.mu.Lock()
	payload := s.interactionPayloadLocked(channelID, user, perms)
	s.mu.Unlock()
	var rows []any
	for id, v := range values {
		rows = append(rows, map[string]any{"type": discordgo.ActionsRowComponent, "components": []any{
			map[string]any{"type": discordgo.TextInputComponent, "custom_id": id, "value": v},
		}})
	}
	payload["type"] = discordgo.InteractionModalSubmit
	payload["data"] = map[string]any{"custom_id": customID, "components": rows}
	return s.dispatchInteraction(payload, "modal "+customID)
}

// interactionPayloadLocked is what every interaction in channelID by user
// carries: its id and token, the channel, and the member (in a server) or
// the user (in a DM, or a group DM yorozu is not in). s.mu is held.
func (s *Server) interactionPayloadLocked(channelID string, user *discordgo.User, perms int64) map[string]any {
	id, token := s.newIDLocked(), "fake-token-"+s.newIDLocked()
	guildID := s.channelGuild[channelID]
	u := map[string]any{"id": user.ID, "username": user.Username, "global_name": user.GlobalName,
		"discriminator": "0", "avatar": nil, "public_flags": 0}
	payload := map[string]any{
		"id": id, "application_id": appID,
		"token": token, "version": 1, "locale": "ja",
		"channel_id": channelID,
		// The bot's own permissions there, as the fake's @everyone role has
		// them.
		"app_permissions": strconv.FormatInt(EveryonePermissions, 10),
		"entitlements":    []any{},
	}
	switch {
	case s.privateLocked(channelID):
		payload["channel"] = map[string]any{"id": channelID, "type": discordgo.ChannelTypeGroupDM}
		payload["context"] = discordgo.InteractionContextPrivateChannel
		payload["authorizing_integration_owners"] = map[string]string{"1": user.ID}
		payload["user"] = u
	case guildID != "":
		payload["guild_id"] = guildID
		payload["guild_locale"] = "ja"
		payload["channel"] = map[string]any{"id": channelID, "type": discordgo.ChannelTypeGuildText, "guild_id": guildID}
		payload["context"] = discordgo.InteractionContextGuild
		payload["authorizing_integration_owners"] = map[string]string{"0": guildID}
		payload["member"] = map[string]any{
			"user": u, "roles": []string{}, "joined_at": time.Now().Add(-24 * time.Hour).Format(time.RFC3339),
			"permissions": strconv.FormatInt(perms, 10), "deaf": false, "mute": false, "flags": 0, "nick": nil,
		}
	default:
		payload["channel"] = map[string]any{"id": channelID, "type": discordgo.ChannelTypeDM}
		payload["context"] = discordgo.InteractionContextBotDM
		payload["authorizing_integration_owners"] = map[string]string{"0": "0"}
		payload["user"] = u
	}
	return payload
}

// dispatchInteraction sends payload as INTERACTION_CREATE and tracks it
// for its callbacks.
func (s *Server) dispatchInteraction(payload map[string]any, what string) *discordgo.Interaction {
	s.t.Helper()
	raw, err := json.Marshal(payload)
	if err != nil {
		s.t.Fatalf("discordtest: %s: %v", what, err)
	}
	var i discordgo.Interaction
	if err := json.Unmarshal(raw, &i); err != nil {
		s.t.Fatalf("discordtest: %s: discordgo cannot read the interaction: %v", what, err)
	}
	s.mu.Lock()
	s.trackLocked(&i)
	s.mu.Unlock()
	s.Dispatch("INTERACTION_CREATE", json.RawMessage(raw))
	return &i
}

// pressable reports whether m carries an enabled button with customID
// (a link button has none).
func pressable(m *Message, customID string) bool {
	for _, b := range m.Buttons() {
		if b.CustomID == customID && !b.Disabled {
			return true
		}
	}
	return false
}
