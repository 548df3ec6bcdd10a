package metrics

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
)

// Turns is chat router middleware: it counts each turn by adapter, route
// and outcome, times its first text and its end, counts the tool calls it
// makes, and keeps its time to first text for Stats.
func (m *Metrics) Turns(route string, next chat.Handler) chat.Handler {
	return chat.HandlerFunc(func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		adapter := adapterLabel(req.Source)
		start := m.opts.Now()
		var firstText time.Duration = -1
		err := next.Handle(ctx, req, func(ev llm.Event) error {
			switch e := ev.(type) {
			case llm.Text:
				if firstText < 0 {
					firstText = m.opts.Now().Sub(start)
					m.turnFirstText.WithLabelValues(adapter).Observe(firstText.Seconds())
				}
			case llm.ToolFinished:
				m.toolFinished(e)
			}
			if emit == nil {
				return nil
			}
			return emit(ev)
		})
		if errors.Is(err, chat.ErrNotAdmitted) {
			return err // counted when it runs again, here or in the process that claimed it
		}
		took := m.opts.Now().Sub(start)
		outcome := llm.Outcome(err)
		m.turns.WithLabelValues(adapter, route, outcome).Inc()
		m.turnDuration.WithLabelValues(adapter).Observe(took.Seconds())
		if firstText >= 0 {
			m.window.addTurn(turnSample{at: start, firstText: firstText})
		}
		return err
	})
}

func adapterLabel(source string) string {
	switch source {
	case "discord", "web":
		return source
	}
	return "other"
}

// SetTools names the tools whose calls are counted under their own name;
// any other name a model invents is counted as "unknown", so the label
// stays bounded.
func (m *Metrics) SetTools(names []string) { m.tools.set(names) }

func (m *Metrics) toolFinished(e llm.ToolFinished) {
	name := m.tools.label(e.Name)
	outcome := "ok"
	switch {
	// The pipeline reports a tool it gave up on as llm.ErrToolTimeout; a
	// tool may also return its own deadline's error.
	case errors.Is(e.Err, llm.ErrToolTimeout), errors.Is(e.Err, context.DeadlineExceeded):
		outcome = "timeout"
	case e.Err != nil:
		outcome = "error"
	}
	m.toolCalls.WithLabelValues(name, outcome).Inc()
	m.toolDuration.WithLabelValues(name).Observe(e.Duration.Seconds())
}

// LLMCall counts one call to Ollama; plug it in where calls are recorded.
func (m *Metrics) LLMCall(c llm.Call) {
	kind, outcome := c.Kind, c.Outcome
	if kind == "" {
		kind = llm.KindReply
	}
	if outcome == "" {
		outcome = "ok"
	}
	m.llmRequests.WithLabelValues(c.Model, kind, outcome).Inc()
	if c.FirstToken > 0 {
		m.llmTTFT.WithLabelValues(c.Model).Observe(c.FirstToken.Seconds())
	}
	if c.PromptTokens > 0 {
		m.llmTokens.WithLabelValues(c.Model, "prompt").Add(float64(c.PromptTokens))
	}
	if c.CompletionTokens > 0 {
		m.llmTokens.WithLabelValues(c.Model, "completion").Add(float64(c.CompletionTokens))
	}
	if c.CompletionTokens > 0 && c.EvalDuration > 0 {
		m.window.addGeneration(generationSample{at: m.opts.Now(), tokens: c.CompletionTokens, took: c.EvalDuration})
	}
}

// QueueWait observes how long an LLM call waited for a slot.
func (m *Metrics) QueueWait(d time.Duration) { m.queueWait.Observe(d.Seconds()) }

// JobDone counts one run of a named job.
func (m *Metrics) JobDone(name string, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.jobs.WithLabelValues(name, outcome).Inc()
}

// ReminderDone counts one delivery attempt and, when it was delivered, how
// late.
func (m *Metrics) ReminderDone(outcome string, late time.Duration) {
	m.reminders.WithLabelValues(outcome).Inc()
	if outcome == "delivered" {
		m.reminderLateness.Observe(late.Seconds())
	}
}

// DiscordConnected counts a gateway connection; plug it into discordgo's
// Connect event. Every connection after the first is a reconnect.
func (m *Metrics) DiscordConnected() {
	select {
	case m.connected <- struct{}{}:
	default:
		m.discordReconnects.Inc()
	}
}

// DiscordTransport wraps next so that every Discord REST request is
// counted by route group and status class, and 429s as rate limited.
func (m *Metrics) DiscordTransport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(r)
		class := "error"
		if err == nil {
			class = string("012345"[min(max(resp.StatusCode/100, 0), 5)]) + "xx"
			if resp.StatusCode == http.StatusTooManyRequests {
				m.discordRateLimited.Inc()
			}
		}
		m.discordRequests.WithLabelValues(RouteGroup(r.URL.Path), class).Inc()
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// RouteGroup names the kind of Discord REST route a path is, without ids
// or tokens: messages, typing, channels, webhooks, interactions, commands,
// gateway, users, guilds or other.
func RouteGroup(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	// Skip a proxy's prefix and "api/v10".
	i := slices.Index(parts, "api")
	if i >= 0 {
		parts = parts[i+1:]
		if len(parts) > 0 && strings.HasPrefix(parts[0], "v") {
			parts = parts[1:]
		}
	}
	if len(parts) == 0 {
		return "other"
	}
	switch parts[0] {
	case "channels":
		if len(parts) >= 3 {
			switch parts[2] {
			case "messages":
				return "messages"
			case "typing":
				return "typing"
			}
		}
		return "channels"
	case "applications":
		return "commands"
	case "webhooks", "interactions", "users", "guilds":
		return parts[0]
	case "gateway":
		return "gateway"
	}
	return "other"
}

// toolNames is the set of tool names counted under their own label.
type toolNames struct {
	mu    sync.RWMutex
	names map[string]bool
}

func (t *toolNames) set(names []string) {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	t.mu.Lock()
	t.names = m
	t.mu.Unlock()
}

func (t *toolNames) label(name string) string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.names[name] {
		return name
	}
	return "unknown"
}
