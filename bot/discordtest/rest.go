// The REST entry: serveHTTP reads the request, routeLocked picks the
// route, and the answer is written (or lost, see LoseCreateResponses).

package discordtest

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// apiPrefix is the version every REST path starts with.
var apiPrefix = regexp.MustCompile(`^/api/v[0-9]+`)

// response is a route's answer, before serveHTTP writes it.
type response struct {
	status int
	body   any
	header http.Header
	msg    *Message
	lost   Loss // the message was made but the answer is lost this way
	// undecodable answers msg as UndecodableAnswers says.
	undecodable bool
}

// apiError is a Discord JSON error.
func apiError(status, code int, msg string) response {
	return response{status: status, body: map[string]any{"message": msg, "code": code}}
}

// serveHTTP is the fake's one handler: the gateway, attachment files and
// REST.
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
	case LossBadGateway:
		res.status, res.body = http.StatusBadGateway, map[string]any{"message": "502: Bad Gateway", "code": 0}
	}
	c := Call{Method: r.Method, Path: path, Body: raw, Status: res.status, Time: time.Now()}
	if res.msg != nil {
		c.MessageID, c.Content = res.msg.ID, res.msg.Content
	}
	s.calls = append(s.calls, c)
	var out any = res.body
	if res.msg != nil && res.body == nil && res.status == http.StatusOK {
		lm := listedMessage{Message: s.wireMessage(res.msg), Nonce: res.msg.Nonce, Components: wireComponents(res.msg)}
		out = lm
		if res.undecodable {
			out = withRoleObjects(lm)
		}
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

// routeLocked answers a REST request; path is after /api/v{N}. s.mu is held.
func (s *Server) routeLocked(r *http.Request, path string, body json.RawMessage) response {
	if res, ok := s.rateLimitLocked(r.Method, path); ok {
		return res
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
	case r.Method == http.MethodPost && path == "/users/@me/channels":
		return s.createDMLocked(body)
	case seg[0] == "channels" && len(seg) == 2 && r.Method == http.MethodGet:
		return s.getChannelLocked(seg[1])
	case seg[0] == "channels" && len(seg) >= 3:
		return s.channelLocked(r.Method, seg[1], seg[2:], body, r.URL.Query())
	case seg[0] == "guilds" && len(seg) == 2 && r.Method == http.MethodGet:
		return s.getGuildLocked(seg[1])
	case seg[0] == "guilds" && len(seg) == 3 && seg[2] == "scheduled-events" && r.Method == http.MethodPost:
		return s.createEventLocked(seg[1], body)
	case seg[0] == "guilds" && len(seg) == 3 && seg[2] == "scheduled-events" && r.Method == http.MethodGet:
		return s.listEventsLocked(seg[1])
	case seg[0] == "guilds" && len(seg) == 4 && seg[2] == "members" && seg[3] == botID && r.Method == http.MethodGet:
		return s.getBotMemberLocked(seg[1])
	case seg[0] == "guilds" && len(seg) == 4 && seg[2] == "members" && r.Method == http.MethodGet:
		return s.getMemberLocked(seg[1], seg[3])
	case seg[0] == "webhooks" && len(seg) == 3 && r.Method == http.MethodGet:
		return s.getWebhookLocked(seg[1], seg[2])
	case seg[0] == "webhooks" && len(seg) == 5 && seg[1] == appID && seg[3] == "messages" && r.Method == http.MethodPatch:
		return s.editInteractionMessageLocked(seg[2], seg[4], body)
	case seg[0] == "webhooks" && len(seg) == 3 && seg[1] == appID && r.Method == http.MethodPost:
		return s.followupLocked(seg[2], r.URL.Query().Get("wait") == "true", body)
	case seg[0] == "webhooks" && len(seg) == 5 && seg[3] == "messages" && r.Method == http.MethodPatch:
		return s.editWebhookMessageLocked(seg[1], seg[2], seg[4], body)
	case seg[0] == "webhooks" && len(seg) == 3 && r.Method == http.MethodPost:
		return s.webhookLocked(seg[1], seg[2], r.URL.Query().Get("wait") == "true", body)
	case seg[0] == "applications" && len(seg) == 3 && seg[2] == "commands" && r.Method == http.MethodPut:
		return s.putCommandsLocked(seg[1], body)
	case seg[0] == "interactions" && len(seg) == 4 && seg[3] == "callback" && r.Method == http.MethodPost:
		return s.interactionCallbackLocked(seg[1], seg[2], body)
	}
	return apiError(http.StatusNotFound, 0, "404: Not Found")
}
