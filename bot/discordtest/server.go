// Package discordtest is an in-process fake of Discord that speaks the real
// protocol: REST under /api/v{N}/ and a gateway websocket. Tests point the real
// discordgo client at it (as the bot's API base) and observe what the bot did.
package discordtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Fixed identities of the fake.
const (
	botID     = "100000000000000001"
	botName   = "yorozu"
	appID     = "100000000000000002"
	sessionID = "fake-session"

	// nonceWindow is how long Discord remembers an enforced nonce.
	nonceWindow = 5 * time.Minute
	// maxContent is Discord's message length limit, in characters.
	maxContent = 2000
)

// Call is one REST request the fake answered.
type Call struct {
	Method    string
	Path      string          // path after /api/v{N}, e.g. "/channels/1/messages"
	Body      json.RawMessage // request body when it was JSON
	Status    int             // HTTP status the fake answered with
	Time      time.Time
	MessageID string // message created or edited, if any
	Content   string // message content after the call, if any
}

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
	Edits    int
	// Nonce and EnforceNonce are as the creator sent them.
	Nonce        string
	EnforceNonce bool
	// CreatedAt is when the fake made the message.
	CreatedAt time.Time
}

// Attachment is a file sent with a message as multipart/form-data.
type Attachment struct {
	Filename    string
	ContentType string
	Data        []byte
}

type failure struct {
	status  int
	code    int
	message string
}

type rateRule struct {
	method, prefix string
	n              int
	retryAfter     time.Duration
}

type nonceEntry struct {
	messageID string
	at        time.Time
}

type webhook struct{ token, channelID string }

// Loss is how the fake loses the answer to a message it did create.
type Loss int

// The ways an answer is lost.
const (
	// LossServerError answers 500 Internal Server Error.
	LossServerError Loss = iota + 1
	// LossGarbage answers 200 with a body that is not JSON (a proxy's page).
	LossGarbage
	// LossTimeout never answers: the request hangs until the client gives up.
	LossTimeout
)

type lossRule struct {
	channelID string
	n         int
	how       Loss
}

type gatewayConn struct {
	ws  *websocket.Conn
	mu  sync.Mutex // serialises writes
	seq int64
}

// Server is a fake Discord. Create it with New; it closes with the test.
type Server struct {
	t    testing.TB
	upgr websocket.Upgrader

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on every state change
	nextID     uint64
	calls      []Call
	channels   map[string]bool
	threads    map[string]string // thread id -> parent channel id
	failures   map[string]failure
	messages   map[string]*Message
	order      map[string][]string // channel id -> message ids in creation order
	nonces     map[string]nonceEntry
	rules      []*rateRule
	webhooks   map[string]webhook
	uploads    []Attachment // files of the request being routed
	commands   []*discordgo.ApplicationCommand
	responses  []InteractionResponse
	conns      map[*gatewayConn]bool
	identified int
	handshakes int
	closed     bool
	wg         sync.WaitGroup

	// Faults.
	losses        []*lossRule
	refusedEdits  map[string]bool // channel id -> every edit answers 400
	refuseCommand string          // a bulk overwrite naming it answers 400
	closeCode     int             // identify/resume is answered with this close code
	badToken      bool            // REST answers 401, the gateway closes 4004
	guilds        []string        // guilds in READY
	members       map[string]bool // "guild id/user id" of AddMember
	unreachable   bool
	quit          chan struct{} // closed by Close: hung requests end

	// Servers of channels and their overwrites (PutChannelInGuild, DenyBot).
	channelGuild map[string]string
	overwrites   map[string][]*discordgo.PermissionOverwrite

	files     map[string]servedFile // path -> file, served by serveFile
	downloads []string              // paths of files fetched, in order

	// The listener is the fake's own so that it can go away and come back on
	// the same address (SetUnreachable).
	addr    string
	ln      net.Listener
	srv     *http.Server
	netConn map[net.Conn]bool
}

// DefaultGuildID is the server the fake's bot is in unless SetGuilds says
// otherwise.
const DefaultGuildID = "900000000000000001"

// InteractionResponse is one interaction callback the bot made.
type InteractionResponse struct {
	InteractionID string
	Token         string
	Response      discordgo.InteractionResponse
}

var apiPrefix = regexp.MustCompile(`^/api/v[0-9]+`)

// New starts a fake Discord for the test and closes it at cleanup.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		t:        t,
		changed:  make(chan struct{}),
		nextID:   1_200_000_000_000_000_000,
		channels: map[string]bool{},
		threads:  map[string]string{},
		failures: map[string]failure{},
		messages: map[string]*Message{},
		order:    map[string][]string{},
		nonces:   map[string]nonceEntry{},
		webhooks: map[string]webhook{},
		conns:    map[*gatewayConn]bool{},
	}
	s.refusedEdits = map[string]bool{}
	s.channelGuild = map[string]string{}
	s.overwrites = map[string][]*discordgo.PermissionOverwrite{}
	s.guilds = []string{DefaultGuildID}
	s.quit = make(chan struct{})
	s.netConn = map[net.Conn]bool{}
	s.srv = &http.Server{
		Handler: http.HandlerFunc(s.serveHTTP),
		ConnState: func(c net.Conn, st http.ConnState) {
			s.mu.Lock()
			defer s.mu.Unlock()
			switch st {
			case http.StateNew:
				s.netConn[c] = true
			case http.StateClosed, http.StateHijacked:
				delete(s.netConn, c)
			}
		},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("discordtest: listen: %v", err)
	}
	s.ln, s.addr = ln, ln.Addr().String()
	s.serve(ln)
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(ln net.Listener) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.srv.Serve(ln)
	}()
}

// URL is the API base to give the bot, e.g. "http://127.0.0.1:1234/".
func (s *Server) URL() string { return "http://" + s.addr + "/" }

// BotID is the user id of the bot account the fake logs in.
func (s *Server) BotID() string { return botID }

// AppID is the application id reported in READY.
func (s *Server) AppID() string { return appID }

// NewID returns a fresh snowflake.
func (s *Server) NewID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newIDLocked()
}

func (s *Server) newIDLocked() string {
	s.nextID++
	return strconv.FormatUint(s.nextID, 10)
}

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

// EveryonePermissions are what the fake's @everyone role allows in every
// server: View Channels, Send Messages, Send Messages in Threads, Read
// Message History and Attach Files. The bot has no other role.
const EveryonePermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages |
	discordgo.PermissionSendMessagesInThreads | discordgo.PermissionReadMessageHistory | discordgo.PermissionAttachFiles

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

// FailChannel makes every REST call on the channel answer with the given
// status and Discord error code and message.
func (s *Server) FailChannel(id string, status, code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[id] = failure{status: status, code: code, message: msg}
}

// LoseCreateResponses makes the next n message creations in channelID
// happen, while the client is answered as how says: it cannot know the
// message exists.
func (s *Server) LoseCreateResponses(channelID string, n int, how Loss) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.losses = append(s.losses, &lossRule{channelID: channelID, n: n, how: how})
}

// RefuseEdits makes every edit of a message in channelID answer 400 Invalid
// Form Body (true) or succeed again (false).
func (s *Server) RefuseEdits(channelID string, refuse bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusedEdits[channelID] = refuse
}

// RefuseCommand makes every bulk overwrite of the application commands that
// contains the named command answer 400 Invalid Form Body, with the error
// naming that command's index, as Discord does. "" accepts every command
// again.
func (s *Server) RefuseCommand(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuseCommand = name
}

// CloseGateway makes the gateway answer every IDENTIFY and RESUME by closing
// with code, as Discord does with 4014 (disallowed intents) or 4004
// (authentication failed). 0 lets clients in again.
func (s *Server) CloseGateway(code int) {
	s.mu.Lock()
	s.closeCode = code
	s.mu.Unlock()
	if code != 0 {
		s.closeConns(code, "")
	}
}

// RejectToken makes the fake treat the bot's token as wrong or reset: REST
// answers 401 Unauthorized and the gateway closes with 4004. false accepts it
// again.
func (s *Server) RejectToken(reject bool) {
	s.mu.Lock()
	s.badToken = reject
	s.mu.Unlock()
	if reject {
		s.closeConns(4004, "Authentication failed.")
	}
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
	s.notifyLocked()
	s.mu.Unlock()
	s.Dispatch("GUILD_CREATE", map[string]any{"id": id, "name": "guild " + id, "unavailable": false})
}

// SetUnreachable takes the fake off the network (true: its port refuses
// connections and open ones are cut) or puts it back on the same address.
func (s *Server) SetUnreachable(off bool) {
	s.mu.Lock()
	if s.closed || s.unreachable == off {
		s.mu.Unlock()
		return
	}
	s.unreachable = off
	ln := s.ln
	s.mu.Unlock()
	if off {
		ln.Close()
		s.Disconnect()
		s.mu.Lock()
		for c := range s.netConn {
			c.Close()
		}
		s.mu.Unlock()
		return
	}
	nl, err := net.Listen("tcp", s.addr)
	if err != nil {
		s.t.Errorf("discordtest: listen again on %s: %v", s.addr, err)
		return
	}
	s.mu.Lock()
	s.ln = nl
	s.mu.Unlock()
	s.serve(nl)
}

// closeConns closes every gateway connection with a close frame.
func (s *Server) closeConns(code int, text string) {
	for c := range s.takeConns() {
		c.close(code, text)
	}
}

// takeConns forgets every gateway connection and returns them.
func (s *Server) takeConns() map[*gatewayConn]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	conns := s.conns
	s.conns = map[*gatewayConn]bool{}
	s.notifyLocked()
	return conns
}

// AddWebhook registers a webhook that posts into channelID.
func (s *Server) AddWebhook(id, token, channelID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhooks[id] = webhook{token: token, channelID: channelID}
	s.channels[channelID] = true
}

// RateLimitNext answers the next n requests whose method matches and whose
// path (after /api/v{N}) starts with pathPrefix with 429 Too Many Requests.
func (s *Server) RateLimitNext(method, pathPrefix string, n int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, &rateRule{method: method, prefix: pathPrefix, n: n, retryAfter: retryAfter})
}

// Calls returns every REST call so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
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

// WaitFor blocks until cond returns true or ctx ends. cond is evaluated after
// every state change of the fake (REST call, gateway connect) and may call the
// Server's getters.
func (s *Server) WaitFor(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("discordtest: wait: %w", ctx.Err())
		}
	}
}

// WaitConnected blocks until a gateway client is connected (has identified or
// resumed and not been disconnected since).
func (s *Server) WaitConnected(ctx context.Context) error {
	return s.WaitFor(ctx, s.Connected)
}

// Sessions counts IDENTIFY and RESUME handshakes completed so far; it grows
// by one on every reconnect.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.identified
}

// Connected reports whether a gateway client is connected now.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns) > 0
}

// Handshakes counts IDENTIFY and RESUME attempts, refused ones included.
func (s *Server) Handshakes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handshakes
}

// notifyLocked wakes WaitFor callers. s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
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
		m.Timestamp = time.Now()
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

// Dispatch sends a gateway dispatch (op 0) of type t to every connected client.
func (s *Server) Dispatch(t string, data any) {
	s.mu.Lock()
	conns := make([]*gatewayConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		if err := c.dispatch(t, data); err != nil {
			s.t.Logf("discordtest: dispatch %s: %v", t, err)
		}
	}
}

// Disconnect drops every gateway connection, as Discord does before asking
// a client to reconnect.
func (s *Server) Disconnect() {
	for c := range s.takeConns() {
		c.ws.Close()
	}
}

// Close drops gateway connections and stops the server. Idempotent.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.quit)
	s.mu.Unlock()
	s.Disconnect()
	s.srv.Close()
	s.wg.Wait()
}

func (s *Server) storeLocked(m *Message) {
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now()
	}
	s.messages[m.ID] = m
	s.order[m.ChannelID] = append(s.order[m.ChannelID], m.ID)
}

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

// listedMessage is a message as GET /channels/{id}/messages lists it:
// discordgo's Message has no nonce field.
type listedMessage struct {
	*discordgo.Message
	Nonce string `json:"nonce,omitempty"`
}

// listLocked answers GET /channels/{id}/messages: newest first, at most
// limit (default 50, at most 100), before or after a message id.
func (s *Server) listLocked(channelID string, q url.Values) response {
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
		out = append(out, listedMessage{Message: s.wireMessage(m), Nonce: m.Nonce})
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

// ForgetNonces makes the fake forget every enforced nonce, as Discord does
// a few minutes after a message was created: a repeat of the POST then
// creates a second message.
func (s *Server) ForgetNonces() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.nonces)
}

// --- REST ---------------------------------------------------------------

type response struct {
	status int
	body   any
	header http.Header
	msg    *Message
	lost   Loss // the message was made but the answer is lost this way
}

func apiError(status, code int, msg string) response {
	return response{status: status, body: map[string]any{"message": msg, "code": code}}
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/gateway" || r.URL.Path == "/gateway/" {
		s.serveGateway(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/attachments/") {
		s.serveFile(w, r)
		return
	}
	loc := apiPrefix.FindString(r.URL.Path)
	if loc == "" {
		http.NotFound(w, r)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, loc)
	body, files, err := readBody(r)
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"message": "Invalid Form Body: " + err.Error(), "code": 50035})
		return
	}
	var raw json.RawMessage
	if json.Valid(body) {
		raw = body
	}

	s.mu.Lock()
	s.uploads = files
	res := s.routeLocked(r, path, raw)
	s.uploads = nil
	switch res.lost {
	case LossServerError:
		res.status, res.body = http.StatusInternalServerError, map[string]any{"message": "500: Internal Server Error", "code": 0}
	case LossTimeout:
		res.status = 0
	}
	c := Call{Method: r.Method, Path: path, Body: raw, Status: res.status, Time: time.Now()}
	if res.msg != nil {
		c.MessageID, c.Content = res.msg.ID, res.msg.Content
	}
	s.calls = append(s.calls, c)
	var out any = res.body
	if res.msg != nil && res.body == nil && res.status == http.StatusOK {
		out = s.wireMessage(res.msg)
	}
	s.notifyLocked()
	s.mu.Unlock()

	switch res.lost {
	case LossTimeout:
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
		return
	case LossGarbage:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "<html><body>upstream connect error</body></html>")
		return
	}
	for k, v := range res.header {
		w.Header()[k] = v
	}
	if out == nil {
		w.WriteHeader(res.status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(res.status)
	json.NewEncoder(w).Encode(out)
}

// readBody returns a request's JSON body; for multipart/form-data (a
// message with files) that is the payload_json part, and the files[n] parts
// are returned beside it, as Discord reads them.
func readBody(r *http.Request) (json.RawMessage, []Attachment, error) {
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		b, err := io.ReadAll(r.Body)
		return b, nil, err
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var body json.RawMessage
	var files []Attachment
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return body, files, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("multipart: %w", err)
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return nil, nil, fmt.Errorf("multipart part %q: %w", part.FormName(), err)
		}
		switch name := part.FormName(); {
		case name == "payload_json":
			body = data
		case strings.HasPrefix(name, "files["):
			files = append(files, Attachment{Filename: part.FileName(), ContentType: part.Header.Get("Content-Type"), Data: data})
		default:
			return nil, nil, fmt.Errorf("unknown form field %q", name)
		}
	}
}

func (s *Server) routeLocked(r *http.Request, path string, body json.RawMessage) response {
	for i, rule := range s.rules {
		if rule.method == r.Method && strings.HasPrefix(path, rule.prefix) {
			rule.n--
			if rule.n <= 0 {
				s.rules = append(s.rules[:i], s.rules[i+1:]...)
			}
			return rateLimited(rule.retryAfter)
		}
	}
	seg := strings.Split(strings.Trim(path, "/"), "/")
	needAuth := !(seg[0] == "webhooks" || seg[0] == "interactions" || path == "/gateway")
	if needAuth && (s.badToken || !strings.HasPrefix(r.Header.Get("Authorization"), "Bot ")) {
		return apiError(http.StatusUnauthorized, 0, "401: Unauthorized")
	}
	switch {
	case r.Method == http.MethodGet && path == "/gateway":
		return response{status: 200, body: map[string]any{"url": s.gatewayURL()}}
	case r.Method == http.MethodGet && path == "/gateway/bot":
		return response{status: 200, body: map[string]any{
			"url": s.gatewayURL(), "shards": 1,
			"session_start_limit": map[string]int{"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1},
		}}
	case r.Method == http.MethodGet && path == "/users/@me":
		return response{status: 200, body: &discordgo.User{ID: botID, Username: botName, Bot: true}}
	case seg[0] == "channels" && len(seg) == 2 && r.Method == http.MethodGet:
		if f, ok := s.failures[seg[1]]; ok {
			return apiError(f.status, f.code, f.message)
		}
		if !s.channels[seg[1]] {
			return apiError(http.StatusNotFound, 10003, "Unknown Channel")
		}
		ch := &discordgo.Channel{ID: seg[1], Type: discordgo.ChannelTypeGuildText, Name: "channel-" + seg[1],
			GuildID: s.channelGuild[seg[1]], PermissionOverwrites: s.overwrites[seg[1]]}
		if parent, ok := s.threads[seg[1]]; ok {
			ch.Type, ch.Name, ch.ParentID = discordgo.ChannelTypeGuildPublicThread, "thread-"+seg[1], parent
		}
		return response{status: 200, body: ch}
	case seg[0] == "channels" && len(seg) >= 3:
		return s.channelLocked(r.Method, seg[1], seg[2:], body, r.URL.Query())
	case seg[0] == "guilds" && len(seg) == 2 && r.Method == http.MethodGet:
		if !s.knownGuildLocked(seg[1]) {
			return apiError(http.StatusNotFound, 10004, "Unknown Guild")
		}
		return response{status: 200, body: &discordgo.Guild{ID: seg[1], Name: "guild-" + seg[1], OwnerID: "1",
			Roles: []*discordgo.Role{{ID: seg[1], Name: "@everyone", Permissions: EveryonePermissions}}}}
	case seg[0] == "guilds" && len(seg) == 4 && seg[2] == "members" && seg[3] == botID && r.Method == http.MethodGet:
		if !s.knownGuildLocked(seg[1]) {
			return apiError(http.StatusNotFound, 10004, "Unknown Guild")
		}
		return response{status: 200, body: &discordgo.Member{GuildID: seg[1], User: &discordgo.User{ID: botID, Username: botName, Bot: true}, Roles: []string{}}}
	case seg[0] == "guilds" && len(seg) == 4 && seg[2] == "members" && r.Method == http.MethodGet:
		if !s.members[seg[1]+"/"+seg[3]] {
			return apiError(http.StatusNotFound, 10007, "Unknown Member")
		}
		return response{status: 200, body: &discordgo.Member{GuildID: seg[1], User: &discordgo.User{ID: seg[3]}}}
	case seg[0] == "webhooks" && len(seg) == 3 && r.Method == http.MethodGet:
		wh, ok := s.webhooks[seg[1]]
		if !ok || wh.token != seg[2] {
			return apiError(http.StatusNotFound, 10015, "Unknown Webhook")
		}
		return response{status: 200, body: &discordgo.Webhook{ID: seg[1], Type: discordgo.WebhookTypeIncoming, Name: "webhook-" + seg[1],
			ChannelID: wh.channelID, GuildID: s.channelGuild[wh.channelID], Token: wh.token}}
	case seg[0] == "webhooks" && len(seg) == 3 && r.Method == http.MethodPost:
		return s.webhookLocked(seg[1], seg[2], r.URL.Query().Get("wait") == "true", body)
	case seg[0] == "applications" && len(seg) == 3 && seg[2] == "commands" && r.Method == http.MethodPut:
		var cmds []*discordgo.ApplicationCommand
		if err := json.Unmarshal(body, &cmds); err != nil {
			return apiError(400, 50109, "The request body contains invalid JSON.")
		}
		for i, c := range cmds {
			if s.refuseCommand != "" && c.Name == s.refuseCommand {
				return response{status: http.StatusBadRequest, body: map[string]any{
					"code": 50035, "message": "Invalid Form Body",
					"errors": map[string]any{strconv.Itoa(i): map[string]any{"description": map[string]any{
						"_errors": []map[string]string{{"code": "BASE_TYPE_BAD_LENGTH", "message": "Must be between 1 and 100 in length."}},
					}}},
				}}
			}
		}
		for _, c := range cmds {
			c.ID, c.ApplicationID = s.newIDLocked(), seg[1]
		}
		s.commands = cmds
		return response{status: 200, body: cmds}
	case seg[0] == "interactions" && len(seg) == 4 && seg[3] == "callback" && r.Method == http.MethodPost:
		var ir discordgo.InteractionResponse
		if err := json.Unmarshal(body, &ir); err != nil {
			return apiError(400, 50109, "The request body contains invalid JSON.")
		}
		s.responses = append(s.responses, InteractionResponse{InteractionID: seg[1], Token: seg[2], Response: ir})
		return response{status: http.StatusNoContent}
	}
	return apiError(http.StatusNotFound, 0, "404: Not Found")
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

func rateLimited(after time.Duration) response {
	secs := after.Seconds()
	h := http.Header{}
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(secs))))
	h.Set("X-RateLimit-Limit", "5")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset-After", strconv.FormatFloat(secs, 'f', 3, 64))
	h.Set("X-RateLimit-Bucket", "fake-bucket")
	h.Set("X-RateLimit-Scope", "user")
	return response{status: http.StatusTooManyRequests, header: h, body: map[string]any{
		"message": "You are being rate limited.", "retry_after": secs, "global": false,
	}}
}

func (s *Server) gatewayURL() string {
	return "ws://" + s.addr + "/gateway"
}

// outgoing is the subset of a create/edit message body the fake understands.
type outgoing struct {
	Content          *string                           `json:"content"`
	Nonce            json.RawMessage                   `json:"nonce"`
	EnforceNonce     bool                              `json:"enforce_nonce"`
	MessageReference *discordgo.MessageReference       `json:"message_reference"`
	AllowedMentions  *discordgo.MessageAllowedMentions `json:"allowed_mentions"`
	Embeds           []json.RawMessage                 `json:"embeds"`
}

func (s *Server) channelLocked(method, channelID string, rest []string, body json.RawMessage, query url.Values) response {
	if f, ok := s.failures[channelID]; ok {
		return apiError(f.status, f.code, f.message)
	}
	if !s.channels[channelID] {
		return apiError(http.StatusNotFound, 10003, "Unknown Channel")
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
		return response{status: 200, body: s.fetchedMessage(m)}
	case len(rest) == 1 && rest[0] == "messages" && method == http.MethodPost:
		var in outgoing
		if err := json.Unmarshal(body, &in); err != nil {
			return apiError(400, 50109, "The request body contains invalid JSON.")
		}
		res := s.createLocked(channelID, botID, "", in)
		if res.status == http.StatusOK {
			for i, l := range s.losses {
				if l.channelID == channelID {
					if l.n--; l.n <= 0 {
						s.losses = append(s.losses[:i], s.losses[i+1:]...)
					}
					res.lost = l.how
					break
				}
			}
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
		if in.Content != nil {
			if r := checkContent(*in.Content, len(in.Embeds)); r.status != 0 {
				return r
			}
			m.Content = *in.Content
		}
		if in.AllowedMentions != nil {
			m.AllowedMentions = in.AllowedMentions
		}
		m.Edits++
		return response{status: 200, msg: m}
	}
	return apiError(http.StatusNotFound, 0, "404: Not Found")
}

func checkContent(content string, embeds int) response {
	if strings.TrimSpace(content) == "" && embeds == 0 {
		return apiError(400, 50006, "Cannot send an empty message")
	}
	if utf8.RuneCountInString(content) > maxContent {
		return apiError(400, 50035, "Invalid Form Body: content: Must be 2000 or fewer in length.")
	}
	return response{}
}

func (s *Server) createLocked(channelID, authorID, webhookID string, in outgoing) response {
	content := ""
	if in.Content != nil {
		content = *in.Content
	}
	if r := checkContent(content, len(in.Embeds)+len(s.uploads)); r.status != 0 {
		return r
	}
	// Discord remembers an enforced nonce per author for a few minutes and
	// answers a repeat with the message it made the first time.
	nonce := strings.Trim(string(in.Nonce), `"`)
	key := authorID + "/" + nonce
	if in.EnforceNonce && nonce != "" {
		if e, ok := s.nonces[key]; ok && time.Since(e.at) < nonceWindow {
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
		Attachments: s.uploads,
		Nonce:       nonce, EnforceNonce: in.EnforceNonce,
	}
	s.storeLocked(m)
	if in.EnforceNonce && nonce != "" {
		s.nonces[key] = nonceEntry{messageID: m.ID, at: time.Now()}
	}
	return response{status: 200, msg: m}
}

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
		return response{status: http.StatusNoContent, msg: res.msg, body: nil}
	}
	return res
}

// --- gateway ------------------------------------------------------------

type frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d,omitempty"`
	S  int64           `json:"s,omitempty"`
	T  string          `json:"t,omitempty"`
}

func (c *gatewayConn) write(f any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(f)
}

// close ends the connection with a close frame carrying code.
func (c *gatewayConn) close(code int, text string) {
	c.mu.Lock()
	c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
	c.mu.Unlock()
	c.ws.Close()
}

func (c *gatewayConn) dispatch(t string, data any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dispatchLocked(t, data)
}

func (c *gatewayConn) dispatchLocked(t string, data any) error {
	d, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("marshal %s: %w", t, err)
	}
	c.seq++
	c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(frame{Op: 0, T: t, S: c.seq, D: d})
}

func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	ws, err := s.upgr.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.Close()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	defer ws.Close()

	c := &gatewayConn{ws: ws}
	if err := c.write(map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": 41250}}); err != nil {
		return
	}
	for {
		var f frame
		if err := ws.ReadJSON(&f); err != nil {
			s.mu.Lock()
			delete(s.conns, c)
			s.notifyLocked()
			s.mu.Unlock()
			return
		}
		if f.Op == 2 || f.Op == 6 { // identify, resume
			// The refusal is decided with the count, so a test that saw
			// this handshake counted knows whether it was refused.
			s.mu.Lock()
			s.handshakes++
			code, text := s.refusalLocked()
			s.notifyLocked()
			s.mu.Unlock()
			if code != 0 {
				c.close(code, text)
				return
			}
		}
		switch f.Op {
		case 1: // heartbeat
			c.write(map[string]any{"op": 11})
		case 2: // identify
			s.mu.Lock()
			guilds := make([]any, 0, len(s.guilds))
			for _, id := range s.guilds {
				guilds = append(guilds, map[string]any{"id": id, "unavailable": true})
			}
			s.mu.Unlock()
			s.connect(c, "READY", map[string]any{
				"v":                  10,
				"user":               &discordgo.User{ID: botID, Username: botName, Bot: true},
				"session_id":         sessionID,
				"resume_gateway_url": s.gatewayURL(),
				"application":        map[string]any{"id": appID, "flags": 0},
				"guilds":             guilds,
				"private_channels":   []any{},
			})
		case 6: // resume
			var d struct {
				SessionID string `json:"session_id"`
				Seq       int64  `json:"seq"`
			}
			json.Unmarshal(f.D, &d)
			if d.SessionID != sessionID {
				c.write(map[string]any{"op": 9, "d": false})
				continue
			}
			c.mu.Lock()
			c.seq = d.Seq
			c.mu.Unlock()
			s.connect(c, "RESUMED", map[string]any{})
		}
	}
}

// refusalLocked is the close code and reason an IDENTIFY or RESUME gets
// now, or 0. s.mu is held.
func (s *Server) refusalLocked() (int, string) {
	switch {
	case s.badToken:
		return 4004, "Authentication failed."
	case s.closeCode == 4014:
		return 4014, "Disallowed intent(s)."
	case s.closeCode == 4004:
		return 4004, "Authentication failed."
	}
	return s.closeCode, ""
}

// connect registers c for dispatches and sends its first dispatch (READY or
// RESUMED). c.mu is held throughout so no dispatch can overtake it.
func (s *Server) connect(c *gatewayConn, t string, data any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.mu.Lock()
	s.conns[c] = true
	s.identified++
	s.notifyLocked()
	s.mu.Unlock()
	if err := c.dispatchLocked(t, data); err != nil {
		s.t.Logf("discordtest: %s: %v", t, err)
	}
}
