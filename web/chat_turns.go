package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/chat"
)

// A turn started on the admin page runs on the server to its end, whether
// or not the page that started it is still connected: its events are kept
// in a liveTurn while it runs, and any page (the same one reloaded, another
// tab) follows it from the start or from the last event id it saw. Only
// 停止 (POST /chat/sessions/{id}/stop) stops it.

// liveTurn is one turn of a web conversation, running or waiting its turn.
type liveTurn struct {
	session int64
	message string // the user's text, for a page that comes back
	stop    context.CancelCauseFunc

	mu     sync.Mutex
	events [][]byte      // encoded events; the id of events[i] is i+1
	wake   chan struct{} // closed and replaced at each event and at the end
	ended  chan struct{} // closed once the turn has been kept
}

func newLiveTurn(session int64, message string, stop context.CancelCauseFunc) *liveTurn {
	return &liveTurn{session: session, message: message, stop: stop, wake: make(chan struct{}), ended: make(chan struct{})}
}

// send keeps an event for every follower; it never fails, so the turn goes
// on when nobody watches.
func (t *liveTurn) send(typ string, value any) error {
	b, err := json.Marshal(event{Type: typ, Value: value})
	if err != nil {
		return fmt.Errorf("encode %s event: %w", typ, err)
	}
	t.mu.Lock()
	t.events = append(t.events, b)
	close(t.wake)
	t.wake = make(chan struct{})
	t.mu.Unlock()
	return nil
}

func (t *liveTurn) finish() {
	t.mu.Lock()
	close(t.ended)
	close(t.wake)
	t.wake = make(chan struct{})
	t.mu.Unlock()
}

// follow writes the turn's events after the first after ones to out, as
// they come, until the turn ends or ctx does (the page went away).
func (t *liveTurn) follow(ctx context.Context, after int, out *sseWriter) error {
	for {
		t.mu.Lock()
		evs, wake := t.events[min(after, len(t.events)):], t.wake
		ended := isClosed(t.ended)
		t.mu.Unlock()
		for _, b := range evs {
			after++
			if err := out.sendRaw(after, b); err != nil {
				return err
			}
		}
		if ended {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// liveTurns are the turns of web conversations in flight, by session id,
// oldest first.
type liveTurns struct {
	mu sync.Mutex
	m  map[int64][]*liveTurn
}

func (l *liveTurns) add(t *liveTurn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[int64][]*liveTurn{}
	}
	l.m[t.session] = append(l.m[t.session], t)
}

func (l *liveTurns) remove(t *liveTurn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := l.m[t.session]
	for i, x := range ts {
		if x == t {
			ts = append(ts[:i:i], ts[i+1:]...)
			break
		}
	}
	if len(ts) == 0 {
		delete(l.m, t.session)
		return
	}
	l.m[t.session] = ts
}

// first is the oldest turn in flight in session, nil when none.
func (l *liveTurns) first(session int64) *liveTurn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ts := l.m[session]; len(ts) > 0 {
		return ts[0]
	}
	return nil
}

// all returns the turns in flight in session.
func (l *liveTurns) all(session int64) []*liveTurn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*liveTurn(nil), l.m[session]...)
}

// sessions returns the ids of the sessions with a turn in flight.
func (l *liveTurns) sessions() map[int64]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[int64]bool, len(l.m))
	for id := range l.m {
		out[id] = true
	}
	return out
}

// liveJSON is the first event a page that comes back to a turn gets: what
// the user sent, so it can draw the question the history does not hold yet.
type liveJSON struct {
	Message string `json:"message"`
}

// handleLive follows the turn in flight in a conversation:
// GET /chat/sessions/{id}/live, with Last-Event-ID (or ?after=) the last
// event the page saw. 204 when no turn is in flight. The stream starts with
// a live event (the user's text), then the turn's events from the next id.
func (s *Server) handleLive(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.loadSession(w, r)
	if !ok {
		return
	}
	after := 0
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		after, _ = strconv.Atoi(v)
	} else if v := r.URL.Query().Get("after"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeFieldError(w, "after", "0 以上の整数にしてください")
			return
		}
		after = n
	}
	t := s.lanes.live.first(sess.ID)
	if t == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	out := startSSE(w, s.opts.WriteTimeout)
	if out.send("live", liveJSON{Message: t.message}) != nil {
		return
	}
	_ = t.follow(r.Context(), after, out)
}

// handleStop stops the turns in flight in a conversation:
// POST /chat/sessions/{id}/stop. What they wrote is kept, marked
// 「(停止しました)」. 204 whether or not one was running.
func (s *Server) handleStop(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.loadSession(w, r)
	if !ok {
		return
	}
	// Answer once they are kept, so a reload right after shows them.
	s.stopTurns(r, sess.ID)
	w.WriteHeader(http.StatusNoContent)
}

// stopTurns stops the turns in flight in session and waits (at most 10 s
// each) until what they wrote is kept.
func (s *Server) stopTurns(r *http.Request, session int64) {
	ts := s.lanes.live.all(session)
	for _, t := range ts {
		t.stop(chat.ErrStopped)
	}
	for _, t := range ts {
		select {
		case <-t.ended:
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
	}
}

// startSSE answers 200 as an event stream.
func startSSE(w http.ResponseWriter, timeout time.Duration) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sseWriter{w: w, rc: http.NewResponseController(w), timeout: timeout}
}
