package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/llm"
)

// Handler answers one turn, streaming what happens through emit.
type Handler interface {
	Handle(ctx context.Context, req Request, emit func(llm.Event) error) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req Request, emit func(llm.Event) error) error

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req Request, emit func(llm.Event) error) error {
	return f(ctx, req, emit)
}

// Keywords of the keyword routes, listed in the order the bot adds them and
// so tries them: a reminder first, so that 「雨の日に傘を忘れないように」 is a
// reminder rather than the weather.
var (
	ReminderKeywords = []string{"リマインド", "忘れないように", "覚えといて", "アラーム", "remind",
		// Repeating reminders and scheduled posts.
		"毎日", "毎朝", "毎晩", "毎週", "毎月", "毎年", "平日", "隔週", "定期", "投稿して"}
	SmalltalkKeywords = []string{"どうでもいい", "雑談", "暇"}
	WeatherKeywords   = []string{"天気", "洗濯", "雨", "weather"}
)

type route struct {
	name     string
	keywords []string
	handler  Handler
}

// Router picks a handler for a request by keywords: routes are tried in the
// order they were added, the first whose keyword occurs in the text wins,
// and the fallback (the chat handler) takes everything else.
type Router struct {
	routes     []route
	fallback   Handler
	middleware []Middleware
	// TurnTimeout bounds each turn (TURN_TIMEOUT); 0 means no bound. A turn
	// past it ends with an error matching ErrTurnTimeout, in its Failed
	// event too, so the adapter keeps what was written and adds a note.
	TurnTimeout time.Duration
}

// ErrTurnTimeout ends a turn that ran past the router's TurnTimeout.
var ErrTurnTimeout = errors.New("turn timed out")

// NewRouter returns a router that sends every request to fallback until
// routes are added.
func NewRouter(fallback Handler) *Router {
	return &Router{fallback: fallback}
}

// Add appends a route; English keywords match case-insensitively. Adding a
// name twice is an error, so two features cannot silently fight for a route.
func (r *Router) Add(name string, keywords []string, h Handler) error {
	if h == nil || len(keywords) == 0 {
		return fmt.Errorf("add route %q: a handler and keywords are required", name)
	}
	for _, rt := range r.routes {
		if rt.name == name {
			return fmt.Errorf("add route %q: already added", name)
		}
	}
	lower := make([]string, len(keywords))
	for i, k := range keywords {
		lower[i] = strings.ToLower(k)
	}
	r.routes = append(r.routes, route{name: name, keywords: lower, handler: h})
	return nil
}

// Match returns the name and handler for text; the fallback is named "chat".
func (r *Router) Match(text string) (string, Handler) {
	lower := strings.ToLower(text)
	for _, rt := range r.routes {
		for _, k := range rt.keywords {
			if strings.Contains(lower, k) {
				return rt.name, rt.handler
			}
		}
	}
	return "chat", r.fallback
}

// pick is Match for req, whose Chat flag sends it to the chat handler.
func (r *Router) pick(req Request) (string, Handler) {
	if req.Chat {
		return "chat", r.fallback
	}
	return r.Match(req.Text)
}

// Respond routes req to its handler, through the middleware, with a turn
// id on ctx (a new one unless the adapter set one). Adapters call it.
func (r *Router) Respond(ctx context.Context, req Request, emit func(llm.Event) error) error {
	if r.fallback == nil {
		return errors.New("respond: router has no chat handler")
	}
	if TurnID(ctx) == "" {
		ctx = WithTurnID(ctx, NewTurnID())
	}
	name, h := r.pick(req)
	for i := len(r.middleware) - 1; i >= 0; i-- {
		h = r.middleware[i](name, h)
	}
	if r.TurnTimeout <= 0 {
		return h.Handle(ctx, req, emit)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, r.TurnTimeout, ErrTurnTimeout)
	defer cancel()
	timedOut := func(err error) error {
		if err != nil && !errors.Is(err, ErrTurnTimeout) && errors.Is(context.Cause(ctx), ErrTurnTimeout) {
			return fmt.Errorf("%w after %s: %w", ErrTurnTimeout, r.TurnTimeout, err)
		}
		return err
	}
	inner := emit
	if inner == nil {
		inner = func(llm.Event) error { return nil }
	}
	return timedOut(h.Handle(ctx, req, func(ev llm.Event) error {
		if f, ok := ev.(llm.Failed); ok {
			ev = llm.Failed{Err: timedOut(f.Err)}
		}
		return inner(ev)
	}))
}

// Use adds mw around every handler; the first added is the outermost. Add
// middleware before the router answers requests.
func (r *Router) Use(mw Middleware) {
	r.middleware = append(r.middleware, mw)
}
