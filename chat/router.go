package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
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

// Router picks a handler for a request by what its words ask for: Classify
// names the route (its doc gives the order of precedence), the handler
// added for that name answers, and the fallback (the chat handler) takes
// everything else, a route without a handler included.
type Router struct {
	routes     map[string]Handler
	fallback   Handler
	middleware []Middleware
	// TurnTimeout bounds each turn (TURN_TIMEOUT); 0 means no bound. A turn
	// past it ends with an error matching ErrTurnTimeout, in its Failed
	// event too, so the adapter keeps what was written and adds a note.
	TurnTimeout time.Duration
	// Documents keeps the documents attached to a turn (see withDocuments);
	// nil: they are not read, and the user is told so.
	Documents DocumentKeeper
	// Logger logs what could not be read; default slog.Default().
	Logger *slog.Logger
}

// ErrTurnTimeout ends a turn that ran past the router's TurnTimeout.
var ErrTurnTimeout = errors.New("turn timed out")

// NewRouter returns a router that sends every request to fallback until
// routes are added.
func NewRouter(fallback Handler) *Router {
	return &Router{fallback: fallback}
}

// Add sets the handler of a route Classify names (RouteReminder,
// RouteWeather, RouteSmalltalk). Adding a name twice is an error, so two
// features cannot silently fight for a route, and so is a name Classify
// never gives, which would never be used.
func (r *Router) Add(name string, h Handler) error {
	if h == nil {
		return fmt.Errorf("add route %q: a handler is required", name)
	}
	if !slices.Contains(routeNames, name) {
		return fmt.Errorf("add route %q: not a route (want one of %s)", name, strings.Join(routeNames, ", "))
	}
	if _, ok := r.routes[name]; ok {
		return fmt.Errorf("add route %q: already added", name)
	}
	if r.routes == nil {
		r.routes = map[string]Handler{}
	}
	r.routes[name] = h
	return nil
}

// Match returns the name and handler for text said at at; the fallback is
// named "chat".
func (r *Router) Match(text string, at time.Time) (string, Handler) {
	if len(r.routes) == 0 {
		return RouteChat, r.fallback
	}
	name := Classify(text, at)
	if h, ok := r.routes[name]; ok {
		return name, h
	}
	return RouteChat, r.fallback
}

// pick is Match for req, whose Chat flag sends it to the chat handler.
func (r *Router) pick(req Request) (string, Handler) {
	if req.Chat {
		return "chat", r.fallback
	}
	at := req.At
	if at.IsZero() {
		at = time.Now()
	}
	return r.Match(req.Text, at)
}

// Respond routes req to its handler, through the middleware, with a turn
// id on ctx (a new one unless the adapter set one). Adapters call it.
func (r *Router) Respond(ctx context.Context, req Request, emit func(llm.Event) error) error {
	name, h := r.pick(req)
	return r.respond(ctx, req, name, h, emit)
}

// respond is Respond for a request already routed to name and h, so that
// the Chooser, which routes it first to choose its model, does not read
// its words twice.
func (r *Router) respond(ctx context.Context, req Request, name string, h Handler, emit func(llm.Event) error) error {
	if r.fallback == nil {
		return errors.New("respond: router has no chat handler")
	}
	if TurnID(ctx) == "" {
		ctx = WithTurnID(ctx, NewTurnID())
	}
	for i := len(r.middleware) - 1; i >= 0; i-- {
		h = r.middleware[i](name, h)
	}
	req, notes := r.withDocuments(ctx, req)
	if len(notes) > 0 {
		h = notedHandler{h: h, notes: notes}
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
