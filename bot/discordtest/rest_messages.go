// Messages: the routes under /channels/{id}/ (send, edit, fetch, list,
// typing), SendMessage, and the store they and webhooks share.

package discordtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

const (
	// nonceWindow is how long Discord remembers an enforced nonce.
	nonceWindow = 5 * time.Minute
	// maxContent is Discord's message length limit, in characters.
	maxContent = 2000
)

// Message is a message as the fake stores it, after all edits.
type Message struct {
	ID              string
	ChannelID       string
	AuthorID        string
	AuthorName      string // the user's name, for messages sent with SendMessage
	Content         string
	Reference       *discordgo.MessageReference
	AllowedMentions *discordgo.MessageAllowedMentions
	WebhookID       string
	Attachments     []Attachment // files uploaded with the message
	// Attached are a user message's attachments as SendMessage got them
	// (files served by AddAttachment).
	Attached []*discordgo.MessageAttachment
	// Components are the message's action rows and buttons, as discordgo
	// reads them (Buttons lists the buttons).
	Components []discordgo.MessageComponent
	// Flags are as the creator sent them (an ephemeral follow-up has
	// discordgo.MessageFlagsEphemeral).
	Flags discordgo.MessageFlags
	Edits int
	// Nonce and EnforceNonce are as the creator sent them.
	Nonce        string
	EnforceNonce bool
	// CreatedAt is when the fake made the message.
	CreatedAt time.Time
	// Reactions are the bot's reactions on the message now, in order.
	Reactions []string
	// Poll is the poll the message was created with, as sent (nil for
	// none).
	Poll *discordgo.Poll
}

// nonceEntry is the message an enforced nonce made, and when.
type nonceEntry struct {
	messageID string
	at        time.Time
}

// outgoing is the subset of a create/edit message body the fake understands.
type outgoing struct {
	Content          *string                           `json:"content"`
	Nonce            json.RawMessage                   `json:"nonce"`
	EnforceNonce     bool                              `json:"enforce_nonce"`
	MessageReference *discordgo.MessageReference       `json:"message_reference"`
	AllowedMentions  *discordgo.MessageAllowedMentions `json:"allowed_mentions"`
	Embeds           []json.RawMessage                 `json:"embeds"`
	// Components stays raw: discordgo's components decode only through a
	// Message (see decodeComponents).
	Components json.RawMessage        `json:"components"`
	Flags      discordgo.MessageFlags `json:"flags"`
	Poll       *discordgo.Poll        `json:"poll"`
}

// Messages returns the messages of a channel in creation order, with their
// current content. User messages sent with SendMessage are included.
func (s *Server) Messages(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, id := range s.order[channelID] {
		m := *s.messages[id]
		out = append(out, m)
	}
	return out
}

// BotMessages returns the messages the bot posted in a channel, in order.
func (s *Server) BotMessages(channelID string) []Message {
	var out []Message
	for _, m := range s.Messages(channelID) {
		if m.AuthorID == botID {
			out = append(out, m)
		}
	}
	return out
}

// SendMessage stores m as a user message and dispatches MESSAGE_CREATE to
// connected clients. Empty ID and Timestamp are filled in; the channel
// becomes known. A reply (MessageReference) to a message the fake has goes
// out as type 19 with referenced_message, as Discord sends it.
func (s *Server) SendMessage(m *discordgo.Message) *discordgo.Message {
	s.mu.Lock()
	if m.ID == "" {
		m.ID = s.newIDLocked()
	}
	if m.Timestamp.IsZero() {
		m.Timestamp = s.nowLocked()
	}
	s.channels[m.ChannelID] = true
	authorID, authorName := "", ""
	if m.Author != nil {
		authorID, authorName = m.Author.ID, m.Author.Username
	}
	if ref := m.MessageReference; ref != nil {
		m.Type = discordgo.MessageTypeReply
		if target, ok := s.messages[ref.MessageID]; ok && m.ReferencedMessage == nil {
			m.ReferencedMessage = s.wireMessage(target)
		}
	}
	s.storeLocked(&Message{ID: m.ID, ChannelID: m.ChannelID, AuthorID: authorID, AuthorName: authorName, Content: m.Content,
		WebhookID: m.WebhookID, CreatedAt: m.Timestamp, Reference: m.MessageReference, Attached: m.Attachments})
	s.mu.Unlock()
	s.Dispatch("MESSAGE_CREATE", m)
	return m
}

// ForgetNonces makes the fake forget every enforced nonce, as Discord does
// a few minutes after a message was created: a repeat of the POST then
// creates a second message.
func (s *Server) ForgetNonces() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.nonces)
}

// channelLocked answers the routes under /channels/{channelID}/; rest is
// the path after it. s.mu is held.
func (s *Server) channelLocked(method, channelID string, rest []string, body json.RawMessage, query url.Values) response {
	if f, ok := s.failures[channelID]; ok {
		return apiError(f.status, f.code, f.message)
	}
	if !s.channels[channelID] {
		return apiError(http.StatusNotFound, 10003, "Unknown Channel")
	}
	if res, ok := s.messageRouteLocked(method, channelID, rest, body); ok {
		return res
	}
	switch {
	case len(rest) == 1 && rest[0] == "typing" && method == http.MethodPost:
		return response{status: http.StatusNoContent}
	case len(rest) == 1 && rest[0] == "messages" && method == http.MethodGet:
		return s.listLocked(channelID, query)
	case len(rest) == 2 && rest[0] == "messages" && method == http.MethodGet:
		m, ok := s.messages[rest[1]]
		if !ok || m.ChannelID != channelID {
			return apiError(http.StatusNotFound, 10008, "Unknown Message")
		}
		return response{status: 200, body: listedMessage{Message: s.fetchedMessage(m), Components: wireComponents(m)}}
	case len(rest) == 1 && rest[0] == "messages" && method == http.MethodPost:
		var in outgoing
		if err := json.Unmarshal(body, &in); err != nil {
			return apiError(400, 50109, "The request body contains invalid JSON.")
		}
		res := s.createLocked(channelID, botID, "", in)
		if res.status == http.StatusOK {
			res.lost = s.takeLossLocked(channelID)
			res.undecodable = s.undecodableLocked(channelID, method)
		}
		return res
	case len(rest) == 2 && rest[0] == "messages" && method == http.MethodPatch:
		var in outgoing
		if err := json.Unmarshal(body, &in); err != nil {
			return apiError(400, 50109, "The request body contains invalid JSON.")
		}
		m, ok := s.messages[rest[1]]
		if !ok || m.ChannelID != channelID {
			return apiError(http.StatusNotFound, 10008, "Unknown Message")
		}
		if s.refusedEdits[channelID] {
			return apiError(http.StatusBadRequest, 50035, "Invalid Form Body")
		}
		if m.AuthorID != botID {
			return apiError(http.StatusForbidden, 50005, "Cannot edit a message authored by another user")
		}
		res := s.editLocked(m, in)
		res.undecodable = res.status == http.StatusOK && s.undecodableLocked(channelID, method)
		return res
	}
	return apiError(http.StatusNotFound, 0, "404: Not Found")
}

// checkContent is Discord's check of a message's content; the zero
// response lets it pass.
func checkContent(content string, embeds int) response {
	if strings.TrimSpace(content) == "" && embeds == 0 {
		return apiError(400, 50006, "Cannot send an empty message")
	}
	if utf8.RuneCountInString(content) > maxContent {
		return apiError(400, 50035, "Invalid Form Body: content: Must be 2000 or fewer in length.")
	}
	return response{}
}

// checkPoll is Discord's check of a poll request: a question of 1–300
// characters, 1–10 answers of 1–55 characters, a duration of 1–768 hours
// (absent: 24); the zero response lets it pass.
func checkPoll(p *discordgo.Poll) response {
	invalid := func(what string) response { return apiError(400, 50035, "Invalid Form Body: poll."+what) }
	if n := utf8.RuneCountInString(p.Question.Text); n < 1 || n > 300 {
		return invalid("question.text: Must be between 1 and 300 in length.")
	}
	if len(p.Answers) < 1 || len(p.Answers) > 10 {
		return invalid("answers: Must be between 1 and 10 in length.")
	}
	for _, a := range p.Answers {
		if a.Media == nil || utf8.RuneCountInString(a.Media.Text) < 1 || utf8.RuneCountInString(a.Media.Text) > 55 {
			return invalid("answers.poll_media.text: Must be between 1 and 55 in length.")
		}
	}
	if p.Duration < 0 || p.Duration > 768 {
		return invalid("duration: Must be between 1 and 768.")
	}
	return response{}
}

// editLocked applies an edit to m: content when sent, components when
// sent as an array (absent or null leaves them). s.mu is held.
func (s *Server) editLocked(m *Message, in outgoing) response {
	comps, replace, res := checkedComponents(in.Components)
	if res.status != 0 {
		return res
	}
	content := m.Content
	if in.Content != nil {
		content = *in.Content
	}
	if in.Content != nil || replace {
		if r := checkContent(content, len(in.Embeds)); r.status != 0 {
			return r
		}
	}
	m.Content = content
	if replace {
		m.Components = comps
	}
	if in.AllowedMentions != nil {
		m.AllowedMentions = in.AllowedMentions
	}
	m.Edits++
	return response{status: 200, msg: m}
}

// createLocked makes a message in channelID as the bot or a webhook sends
// it, or answers as Discord would instead. s.mu is held.
func (s *Server) createLocked(channelID, authorID, webhookID string, in outgoing) response {
	content := ""
	if in.Content != nil {
		content = *in.Content
	}
	if in.Poll != nil {
		if s.deniedLocked(channelID, discordgo.PermissionSendPolls) {
			return missingPermissions
		}
		if r := checkPoll(in.Poll); r.status != 0 {
			return r
		}
	} else if r := checkContent(content, len(in.Embeds)+len(s.uploads)); r.status != 0 {
		return r
	}
	comps, _, res := checkedComponents(in.Components)
	if res.status != 0 {
		return res
	}
	// Discord remembers an enforced nonce per author for a few minutes and
	// answers a repeat with the message it made the first time.
	nonce := strings.Trim(string(in.Nonce), `"`)
	key := authorID + "/" + nonce
	if in.EnforceNonce && nonce != "" {
		if e, ok := s.nonces[key]; ok && s.nowLocked().Sub(e.at) < nonceWindow {
			return response{status: 200, msg: s.messages[e.messageID]}
		}
	}
	if ref := in.MessageReference; ref != nil {
		target, ok := s.messages[ref.MessageID]
		if (!ok || target.ChannelID != channelID) && (ref.FailIfNotExists == nil || *ref.FailIfNotExists) {
			return apiError(400, 50035, "Invalid Form Body: message_reference: Unknown message")
		}
	}
	m := &Message{
		ID: s.newIDLocked(), ChannelID: channelID, AuthorID: authorID, Content: content,
		Reference: in.MessageReference, AllowedMentions: in.AllowedMentions, WebhookID: webhookID,
		Attachments: s.uploads, Components: comps, Flags: in.Flags,
		Nonce: nonce, EnforceNonce: in.EnforceNonce, Poll: in.Poll,
	}
	s.storeLocked(m)
	if in.EnforceNonce && nonce != "" {
		s.nonces[key] = nonceEntry{messageID: m.ID, at: s.nowLocked()}
	}
	return response{status: 200, msg: m}
}

// storeLocked adds m to its channel. s.mu is held.
func (s *Server) storeLocked(m *Message) {
	if m.CreatedAt.IsZero() {
		m.CreatedAt = s.nowLocked()
	}
	s.messages[m.ID] = m
	s.order[m.ChannelID] = append(s.order[m.ChannelID], m.ID)
}

// wireMessage is m as Discord sends it.
func (s *Server) wireMessage(m *Message) *discordgo.Message {
	author := &discordgo.User{ID: m.AuthorID, Username: m.AuthorName}
	if m.AuthorID == botID {
		author = &discordgo.User{ID: botID, Username: botName, Bot: true}
	}
	typ := discordgo.MessageTypeDefault
	if m.Reference != nil {
		typ = discordgo.MessageTypeReply
	}
	return &discordgo.Message{
		ID:               m.ID,
		Type:             typ,
		ChannelID:        m.ChannelID,
		Content:          m.Content,
		Author:           author,
		Timestamp:        m.CreatedAt,
		MessageReference: m.Reference,
		WebhookID:        m.WebhookID,
		Attachments:      m.Attached,
		Poll:             m.Poll,
	}
}

// fetchedMessage is a message as GET /channels/{id}/messages/{id} answers
// it: with the message it replies to, one level deep, as Discord does.
func (s *Server) fetchedMessage(m *Message) *discordgo.Message {
	w := s.wireMessage(m)
	if m.Reference != nil {
		if target, ok := s.messages[m.Reference.MessageID]; ok {
			w.ReferencedMessage = s.wireMessage(target)
		}
	}
	return w
}

// listedMessage is a message as the REST routes write it: discordgo's
// Message has no nonce field and leaves its components out when encoded.
type listedMessage struct {
	*discordgo.Message
	Nonce      string                       `json:"nonce,omitempty"`
	Components []discordgo.MessageComponent `json:"components"`
}

// listLocked answers GET /channels/{id}/messages: newest first, at most
// limit (default 50, at most 100), before or after a message id; 403 where
// DenyBot denied Read Message History.
func (s *Server) listLocked(channelID string, q url.Values) response {
	if s.deniedLocked(channelID, discordgo.PermissionReadMessageHistory) {
		return apiError(http.StatusForbidden, 50001, "Missing Access")
	}
	limit := 50
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return apiError(400, 50035, "Invalid Form Body: limit: must be between 1 and 100")
		}
		limit = n
	}
	before, after := q.Get("before"), q.Get("after")
	ids := s.order[channelID]
	out := []listedMessage{}
	for i := len(ids) - 1; i >= 0 && len(out) < limit; i-- {
		if before != "" && !snowflakeLess(ids[i], before) || after != "" && !snowflakeLess(after, ids[i]) {
			continue
		}
		m := s.messages[ids[i]]
		out = append(out, listedMessage{Message: s.wireMessage(m), Nonce: m.Nonce, Components: wireComponents(m)})
	}
	return response{status: 200, body: out}
}

// snowflakeLess orders ids as numbers, as Discord does.
func snowflakeLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
