// Server: its state, New, and what every part shares (ids, the call log,
// WaitFor) and Close.

package discordtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Fixed identities of the fake.
const (
	botID     = "100000000000000001"
	botName   = "yorozu"
	appID     = "100000000000000002"
	sessionID = "fake-session"
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

// Server is a fake Discord. Create it with New; it closes with the test.
type Server struct {
	t    testing.TB
	upgr websocket.Upgrader

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change
	nextID  uint64
	clock   func() time.Time // SetClock; nil: time.Now
	calls   []Call
	closed  bool
	quit    chan struct{} // closed by Close: hung requests end
	// ended is set when a client closed the gateway with 1000 or 1001: as
	// on Discord, the session cannot be resumed then (op 9), only
	// identified anew.
	ended bool
	wg    sync.WaitGroup

	// Channels, threads, servers and members.
	channels     map[string]bool
	threads      map[string]string // thread id -> parent channel id
	threadNames  map[string]string // thread id -> name, for threads the bot started
	channelGuild map[string]string // channel id -> guild id (PutChannelInGuild)
	guilds       []string          // guilds in READY
	members      map[string]bool   // "guild id/user id" of AddMember
	groupDMs     map[string]bool   // AddGroupDM's channels, where the bot is not
	dms          map[string]string // user id -> the DM channel the bot opened
	names        map[string]string // guild or channel id -> SetName's name

	overwrites map[string][]*discordgo.PermissionOverwrite // channel id -> DenyBot's
	guildDeny  map[string]int64                            // guild id -> DenyBotInGuild's
	chanTypes  map[string]discordgo.ChannelType            // channel id -> AddVoiceChannel's type

	// Scheduled events, by guild id, in creation order.
	events map[string][]*discordgo.GuildScheduledEvent

	// Messages.
	messages map[string]*Message
	// ephemeral are the messages only an interaction's user sees, by id.
	ephemeral map[string]*Message
	order     map[string][]string // channel id -> message ids in creation order
	nonces    map[string]nonceEntry
	webhooks  map[string]webhook
	uploads   []Attachment // files of the request being routed
	// reactionLog is the bot's reaction calls by message: "+⏳", "-⏳".
	reactionLog map[string][]string

	// Application commands and interactions.
	commands     []*discordgo.ApplicationCommand
	responses    []InteractionResponse
	interactions map[string]*interaction // by id, as dispatched
	answerWithin time.Duration           // SetInteractionDeadline's; 0: Discord's 3 s

	// Gateway.
	conns      map[*gatewayConn]bool
	identified int
	handshakes int

	// Faults.
	failures      map[string]failure
	rules         []*rateRule // RateLimitNext's, in order
	losses        []*lossRule
	refusedEdits  map[string]bool     // channel id -> every edit answers 400
	undecodable   map[string][]string // channel id -> methods whose message answers discordgo cannot decode
	refuseCommand string              // a bulk overwrite naming it answers 400
	closeCode     int                 // identify/resume is answered with this close code
	badToken      bool                // REST answers 401, the gateway closes 4004
	unreachable   bool

	files     map[string]servedFile // path -> file, served by serveFile
	downloads []string              // paths of files fetched, in order

	// The listener is the fake's own so that it can go away and come back on
	// the same address (SetUnreachable).
	addr    string
	ln      net.Listener
	srv     *http.Server
	netConn map[net.Conn]bool
}

// New starts a fake Discord for the test and closes it at cleanup.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		t:            t,
		changed:      make(chan struct{}),
		nextID:       1_200_000_000_000_000_000,
		quit:         make(chan struct{}),
		channels:     map[string]bool{},
		threads:      map[string]string{},
		threadNames:  map[string]string{},
		names:        map[string]string{},
		reactionLog:  map[string][]string{},
		channelGuild: map[string]string{},
		overwrites:   map[string][]*discordgo.PermissionOverwrite{},
		guildDeny:    map[string]int64{},
		chanTypes:    map[string]discordgo.ChannelType{},
		events:       map[string][]*discordgo.GuildScheduledEvent{},
		guilds:       []string{DefaultGuildID},
		messages:     map[string]*Message{},
		order:        map[string][]string{},
		nonces:       map[string]nonceEntry{},
		webhooks:     map[string]webhook{},
		conns:        map[*gatewayConn]bool{},
		failures:     map[string]failure{},
		refusedEdits: map[string]bool{},
		undecodable:  map[string][]string{},
		netConn:      map[net.Conn]bool{},
	}
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

// newIDLocked is a snowflake of now, as Discord's ids encode when they
// were made (a channel's last_message_id says how recent its last
// message is), and greater than every id before it. s.mu is held.
func (s *Server) newIDLocked() string {
	s.nextID = max(s.nextID+1, uint64(s.nowLocked().UnixMilli()-discordEpoch)<<22)
	return strconv.FormatUint(s.nextID, 10)
}

// SetClock makes now the fake's clock (default time.Now): when the
// messages it makes were made, as their timestamps and ids say. A test
// that moves yorozu's clock moves Discord's with it, as the two agree in
// life.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock = now
}

// nowLocked is the time on the fake's clock. s.mu is held.
func (s *Server) nowLocked() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}

// discordEpoch is the first millisecond of 2015, snowflakes' time zero.
const discordEpoch = 1420070400000

// Calls returns every REST call so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
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

// notifyLocked wakes WaitFor callers. s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
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
