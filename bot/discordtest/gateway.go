// The gateway websocket: hello, heartbeats, IDENTIFY and RESUME, and the
// dispatches the fake sends to connected clients.

package discordtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// gatewayConn is one client's websocket.
type gatewayConn struct {
	ws  *websocket.Conn
	mu  sync.Mutex // serialises writes
	seq int64
}

// frame is a gateway payload, in either direction.
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

func (s *Server) gatewayURL() string {
	return "ws://" + s.addr + "/gateway"
}

// serveGateway runs one client's websocket: HELLO, then heartbeats,
// IDENTIFY and RESUME until the client or the fake ends it.
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
			if websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway) {
				s.ended = true
			}
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
			// As Discord does, READY lists the servers as unavailable,
			// and each follows as a GUILD_CREATE with its channels and
			// active threads.
			s.mu.Lock()
			s.ended = false
			guilds := make([]any, 0, len(s.guilds))
			creates := make([]dispatch, 0, len(s.guilds))
			for _, id := range s.guilds {
				guilds = append(guilds, map[string]any{"id": id, "unavailable": true})
				creates = append(creates, dispatch{"GUILD_CREATE", s.guildCreateLocked(id)})
			}
			s.mu.Unlock()
			s.connect(c, append([]dispatch{{"READY", map[string]any{
				"v":                  10,
				"user":               &discordgo.User{ID: botID, Username: botName, Bot: true},
				"session_id":         sessionID,
				"resume_gateway_url": s.gatewayURL(),
				"application":        map[string]any{"id": appID, "flags": 0},
				"guilds":             guilds,
				"private_channels":   []any{},
			}}}, creates...)...)
		case 6: // resume
			var d struct {
				SessionID string `json:"session_id"`
				Seq       int64  `json:"seq"`
			}
			json.Unmarshal(f.D, &d)
			s.mu.Lock()
			ended := s.ended
			s.mu.Unlock()
			if d.SessionID != sessionID || ended {
				c.write(map[string]any{"op": 9, "d": false})
				continue
			}
			c.mu.Lock()
			c.seq = d.Seq
			c.mu.Unlock()
			s.connect(c, dispatch{"RESUMED", map[string]any{}})
		}
	}
}

// dispatch is one gateway dispatch: its type and data.
type dispatch struct {
	t    string
	data any
}

// connect registers c for dispatches and sends its first dispatches (READY
// and the GUILD_CREATEs, or RESUMED). c.mu is held throughout so no other
// dispatch can overtake them.
func (s *Server) connect(c *gatewayConn, first ...dispatch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.mu.Lock()
	s.conns[c] = true
	s.identified++
	s.notifyLocked()
	s.mu.Unlock()
	for _, d := range first {
		if err := c.dispatchLocked(d.t, d.data); err != nil {
			s.t.Logf("discordtest: %s: %v", d.t, err)
			return
		}
	}
}

// guildCreateLocked is the GUILD_CREATE of server id, as Discord sends it
// after READY: its text channels and active threads (those put in it with
// PutChannelInGuild, and their threads), each with the id of its last
// message. s.mu is held.
func (s *Server) guildCreateLocked(id string) *discordgo.Guild {
	g := &discordgo.Guild{ID: id, Name: s.nameLocked(id, "guild "+id), Channels: []*discordgo.Channel{}, Threads: []*discordgo.Channel{}}
	for ch := range s.channels {
		parent, thread := s.threads[ch]
		guild := s.channelGuild[ch]
		if guild == "" && thread {
			guild = s.channelGuild[parent]
		}
		if guild != id {
			continue
		}
		c := &discordgo.Channel{ID: ch, GuildID: id, Type: discordgo.ChannelTypeGuildText, Name: s.nameLocked(ch, "channel-"+ch)}
		if order := s.order[ch]; len(order) > 0 {
			c.LastMessageID = order[len(order)-1]
		}
		if thread {
			c.Type, c.Name, c.ParentID = discordgo.ChannelTypeGuildPublicThread, s.nameLocked(ch, "thread-"+ch), parent
			g.Threads = append(g.Threads, c)
			continue
		}
		g.Channels = append(g.Channels, c)
	}
	slices.SortFunc(g.Channels, func(a, b *discordgo.Channel) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(g.Threads, func(a, b *discordgo.Channel) int { return strings.Compare(a.ID, b.ID) })
	return g
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

// WaitConnected blocks until a gateway client is connected (has identified or
// resumed and not been disconnected since).
func (s *Server) WaitConnected(ctx context.Context) error {
	return s.WaitFor(ctx, s.Connected)
}

// Connected reports whether a gateway client is connected now.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns) > 0
}

// Sessions counts IDENTIFY and RESUME handshakes completed so far; it grows
// by one on every reconnect.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.identified
}

// Handshakes counts IDENTIFY and RESUME attempts, refused ones included.
func (s *Server) Handshakes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handshakes
}
