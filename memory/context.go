package memory

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
)

var weekdaysJA = [...]string{"日", "月", "火", "水", "木", "金", "土"}

// Context returns the messages for the model's next turn in session key: the
// system prompt (persona and the current date and time), the session's recent
// unarchived history oldest first, bounded by MaxMessages and MaxChars, and
// last the new user message userText. History costs one indexed query.
func (m *Memory) Context(ctx context.Context, key SessionKey, userText string) ([]api.Message, error) {
	history, err := db.RecentMessagesByKey(ctx, m.pool, string(key), m.opts.MaxMessages)
	if err != nil {
		return nil, fmt.Errorf("context for session %q: %w", key, err)
	}
	history = trimToChars(history, m.opts.MaxChars)

	msgs := make([]api.Message, 0, len(history)+2)
	msgs = append(msgs, api.Message{Role: "system", Content: m.systemPrompt()})
	for _, h := range history {
		msgs = append(msgs, api.Message{Role: h.Role, Content: historyContent(h)})
	}
	msgs = append(msgs, api.Message{Role: "user", Content: userText})
	return msgs, nil
}

func (m *Memory) systemPrompt() string {
	now := m.opts.Now().In(m.opts.Location)
	zone := m.opts.Location.String()
	if zone == "" || zone == "Local" {
		zone = now.Format("MST")
	}
	return fmt.Sprintf("%s\n\n現在: %d年%d月%d日(%s) %s (%s)",
		m.opts.Persona, now.Year(), int(now.Month()), now.Day(),
		weekdaysJA[now.Weekday()], now.Format("15:04"), zone)
}

// historyContent shows who spoke: several people share a channel, and the
// model must tell them apart.
func historyContent(h db.Message) string {
	if h.Role == db.RoleUser && h.AuthorName != "" {
		return h.AuthorName + ": " + h.Content
	}
	return h.Content
}

// trimToChars drops the oldest messages until the rest fit in maxChars. The
// newest message always stays, even when it alone is longer.
func trimToChars(ms []db.Message, maxChars int) []db.Message {
	total := 0
	for i := len(ms) - 1; i >= 0; i-- {
		total += utf8.RuneCountInString(historyContent(ms[i]))
		if total > maxChars && i < len(ms)-1 {
			return ms[i+1:]
		}
	}
	return ms
}
