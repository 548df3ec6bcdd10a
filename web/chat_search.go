package web

import (
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
)

// maxSearchHits bounds one search's answer.
const maxSearchHits = 50

// searchHitJSON is one message a search found.
type searchHitJSON struct {
	SessionID    int64     `json:"session_id"`
	MessageID    int64     `json:"message_id"`
	Role         string    `json:"role"`
	Snippet      string    `json:"snippet"` // the line that matches, cut around the match
	SessionTitle string    `json:"session_title"`
	CreatedAt    time.Time `json:"created_at"`
	// A channel log's message (role "channel_log", session_id 0): where
	// it was said and who said it, with the link that opens it in Discord.
	ChannelID string `json:"channel_id,omitempty"`
	Author    string `json:"author,omitempty"`
	Link      string `json:"link,omitempty"`
}

// handleSearch finds messages across every conversation, web and Discord,
// newest first: GET /api/search?q=… (words split on spaces; all must be
// there; Japanese words of two characters are found too).
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		writeFieldError(w, "q", "検索する言葉を入力してください")
		return
	}
	if utf8.RuneCountInString(q) > 200 {
		writeFieldError(w, "q", "200 文字までにしてください")
		return
	}
	hits, err := db.SearchMessages(r.Context(), s.opts.Pool, q, maxSearchHits)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	titles := map[int64]string{}
	out := make([]searchHitJSON, 0, len(hits))
	for _, h := range hits {
		title, ok := titles[h.SessionID]
		if !ok {
			if sess, err := db.SessionItemByID(r.Context(), s.opts.Pool, h.SessionID); err == nil {
				title = s.namesOf(r.Context(), sessionIDs(sess)).sessionTitle(sess)
			}
			titles[h.SessionID] = title
		}
		out = append(out, searchHitJSON{SessionID: h.SessionID, MessageID: h.MessageID, Role: h.Role,
			Snippet: snippet(h.Content, strings.Fields(q)[0], 120), SessionTitle: title, CreatedAt: h.CreatedAt})
	}
	// The channel logs are searched too, through the same terms; the
	// newest hits of both are kept.
	logged, err := db.SearchChannelLog(r.Context(), s.opts.Pool, db.ChannelLogQuery{AnySpace: true, Query: q, Limit: maxSearchHits})
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	channels := make([]string, len(logged))
	for i, m := range logged {
		channels[i] = m.ChannelID
	}
	nb := s.namesOf(r.Context(), channels)
	for _, m := range logged {
		out = append(out, searchHitJSON{MessageID: m.MessageID, Role: "channel_log", Snippet: snippet(m.Content, strings.Fields(q)[0], 120),
			SessionTitle: nb.channel(m.ChannelID) + " の記録", CreatedAt: m.CreatedAt, ChannelID: m.ChannelID, Author: m.AuthorName, Link: m.JumpLink()})
	}
	if len(logged) > 0 {
		slices.SortStableFunc(out, func(a, b searchHitJSON) int { return b.CreatedAt.Compare(a.CreatedAt) })
		out = out[:min(len(out), maxSearchHits)]
	}
	writeJSON(w, http.StatusOK, out)
}

// snippet is the line of content that holds word, on one line of at most
// max characters, cut so that word shows.
func snippet(content, word string, max int) string {
	line := content
	lower, lw := strings.ToLower(content), strings.ToLower(word)
	if i := strings.Index(lower, lw); i >= 0 && len(lower) == len(content) {
		start := strings.LastIndexByte(content[:i], '\n') + 1
		end := strings.IndexByte(content[i:], '\n')
		if end < 0 {
			end = len(content)
		} else {
			end += i
		}
		line = content[start:end]
		if before := utf8.RuneCountInString(content[start:i]); before > max/3 {
			r := []rune(line)
			line = "…" + string(r[before-max/3:])
		}
	}
	line = strings.Join(strings.Fields(line), " ")
	if utf8.RuneCountInString(line) > max {
		line = string([]rune(line)[:max-1]) + "…"
	}
	return line
}
