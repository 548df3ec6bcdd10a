// Scripted faults: what a test can make go wrong (failing channels, 429s,
// lost and undecodable answers, refused edits and commands, a closed
// gateway, a rejected token, a fake off the network), and the checks the
// routes make of them.

package discordtest

import (
	"encoding/json"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// failure is FailChannel's answer for a channel.
type failure struct {
	status  int
	code    int
	message string
}

// FailChannel makes every REST call on the channel answer with the given
// status and Discord error code and message.
func (s *Server) FailChannel(id string, status, code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[id] = failure{status: status, code: code, message: msg}
}

// rateRule is one RateLimitNext (or FailNext): n requests left to answer
// 429 (or status).
type rateRule struct {
	method, prefix string
	n              int
	retryAfter     time.Duration
	status         int // FailNext's; 0 is a 429
}

// RateLimitNext answers the next n requests whose method matches and whose
// path (after /api/v{N}) starts with pathPrefix with 429 Too Many Requests.
func (s *Server) RateLimitNext(method, pathPrefix string, n int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, &rateRule{method: method, prefix: pathPrefix, n: n, retryAfter: retryAfter})
}

// FailNext answers the next n requests whose method matches and whose path
// (after /api/v{N}) starts with pathPrefix with status (a 5xx) and
// Discord's error body, doing nothing: an outage the client knows was one.
func (s *Server) FailNext(method, pathPrefix string, n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, &rateRule{method: method, prefix: pathPrefix, n: n, status: status})
}

// rateLimitLocked uses up one request of the first RateLimitNext rule that
// method and path match and answers it with 429; ok is false when none
// does. s.mu is held.
func (s *Server) rateLimitLocked(method, path string) (res response, ok bool) {
	for i, rule := range s.rules {
		if rule.method == method && strings.HasPrefix(path, rule.prefix) {
			rule.n--
			if rule.n <= 0 {
				s.rules = append(s.rules[:i], s.rules[i+1:]...)
			}
			if rule.status != 0 {
				return apiError(rule.status, 0, http.StatusText(rule.status)), true
			}
			return rateLimited(rule.retryAfter), true
		}
	}
	return response{}, false
}

// rateLimited is a 429 with the headers and body Discord sends.
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
	// LossBadGateway answers 502 Bad Gateway, which discordgo retries
	// unless told not to.
	LossBadGateway
)

// lossRule is one LoseCreateResponses: n answers left to lose.
type lossRule struct {
	channelID string
	n         int
	how       Loss
}

// LoseCreateResponses makes the next n message creations in channelID (by
// the bot or through a webhook) happen, while the client is answered as how
// says: it cannot know the message exists.
func (s *Server) LoseCreateResponses(channelID string, n int, how Loss) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.losses = append(s.losses, &lossRule{channelID: channelID, n: n, how: how})
}

// LoseEventResponses makes the next n scheduled-event creations in guildID
// happen, while the client is answered as how says.
func (s *Server) LoseEventResponses(guildID string, n int, how Loss) {
	s.LoseCreateResponses(eventsKey(guildID), n, how)
}

// eventsKey is the key of guildID's events among the losses, which are
// otherwise by channel.
func eventsKey(guildID string) string { return "events:" + guildID }

// takeLossLocked uses up one answer of the first LoseCreateResponses rule
// for channelID, after a message was created there, and returns how it is
// lost, or 0. s.mu is held.
func (s *Server) takeLossLocked(channelID string) Loss {
	for i, l := range s.losses {
		if l.channelID == channelID {
			if l.n--; l.n <= 0 {
				s.losses = append(s.losses[:i], s.losses[i+1:]...)
			}
			return l.how
		}
	}
	return 0
}

// RefuseEdits makes every edit of a message in channelID answer 400 Invalid
// Form Body (true) or succeed again (false).
func (s *Server) RefuseEdits(channelID string, refuse bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusedEdits[channelID] = refuse
}

// UndecodableAnswers makes the fake answer the message writes in channelID
// of the given methods (http.MethodPost creates, http.MethodPatch edits) as
// some Discord-compatible servers do: the write happens and is answered 200
// with the message, but with role objects where Discord sends role ids
// ("mention_roles":[{"id":"1"}]), so discordgo cannot decode the answer. No
// methods answers every write readably again.
func (s *Server) UndecodableAnswers(channelID string, methods ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.undecodable[channelID] = methods
}

// undecodableLocked reports whether UndecodableAnswers spoils the answer to
// a method write in channelID. s.mu is held.
func (s *Server) undecodableLocked(channelID, method string) bool {
	return slices.Contains(s.undecodable[channelID], method)
}

// withRoleObjects is the message m as UndecodableAnswers answers it.
func withRoleObjects(m listedMessage) any {
	raw, err := json.Marshal(m)
	if err != nil {
		return m
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return m
	}
	fields["mention_roles"] = json.RawMessage(`[{"id":"1"}]`)
	return fields
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

// refusedCommandLocked is the 400 a bulk overwrite of cmds gets while
// RefuseCommand names one of them; ok is false otherwise. s.mu is held.
func (s *Server) refusedCommandLocked(cmds []*discordgo.ApplicationCommand) (res response, ok bool) {
	for i, c := range cmds {
		if s.refuseCommand != "" && c.Name == s.refuseCommand {
			return response{status: http.StatusBadRequest, body: map[string]any{
				"code": 50035, "message": "Invalid Form Body",
				"errors": map[string]any{strconv.Itoa(i): map[string]any{"description": map[string]any{
					"_errors": []map[string]string{{"code": "BASE_TYPE_BAD_LENGTH", "message": "Must be between 1 and 100 in length."}},
				}}},
			}}, true
		}
	}
	return response{}, false
}

// CloseGateway makes the gateway answer every IDENTIFY and RESUME by closing
// with code, as Discord does with 4014 (disallowed intents) or 4004
// (authentication failed); clients connected now are closed with code at
// once. 0 lets clients in again.
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
