package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/ollama/ollama/api"
)

// MaxToolRounds is how many rounds of tool calls a turn may make; the call
// after the last round offers no tools, so the model must answer.
const MaxToolRounds = 5

// DefaultCallTimeout bounds each call to a model server when Options.CallTimeout is 0.
const DefaultCallTimeout = 5 * time.Minute

// DefaultToolTimeout bounds each tool call when Options.ToolTimeout is 0
// (TOOL_TIMEOUT).
const DefaultToolTimeout = 60 * time.Second

// ToolSet is what the model may call: definitions to offer and a way to run
// one call. Call returns the tool's result (already within the tool's own
// limit) or an error, which goes back to the model as "Error: …".
type ToolSet interface {
	Definitions() api.Tools
	Call(ctx context.Context, name string, args json.RawMessage) (string, error)
}

// Recorder keeps a record of every LLM call, successful or not. An error
// from RecordCall is logged and never fails the turn.
type Recorder interface {
	RecordCall(ctx context.Context, c Call) error
}

// Call is the record of one chat call to Ollama.
type Call struct {
	Model            string
	Request          []byte // JSON of the api.ChatRequest sent
	Response         string // content, then one "[tool_call] name {args}" line per tool call
	Err              string // empty on success
	Latency          time.Duration
	PromptTokens     int
	CompletionTokens int
	At               time.Time // when the call started
	// Kind is what the call was for (KindReply, KindSummary, …), from
	// WithKind on the caller's context.
	Kind string
	// Outcome is Outcome(err) of the call: "ok", "timeout", ….
	Outcome string
	// FirstToken is the time from the start of the call to the first
	// streamed token (text, thinking or a tool call); 0 when none came.
	FirstToken time.Duration
	// EvalDuration is Ollama's time spent generating the completion.
	EvalDuration time.Duration
}

// Options configures a Pipeline.
type Options struct {
	// Pool is the model servers turns go to. When nil, the pool is Client
	// alone with Concurrency slots.
	Pool *Pool
	// Client is the one model server when Pool is nil.
	Client Backend
	// Recorder keeps every chat call; nil keeps nothing.
	Recorder Recorder
	// Observe, when set, learns of every call, chat and embedding (for
	// metrics). It must be quick.
	Observe func(Call)
	// Concurrency is the number of chat calls in flight to Client; others
	// wait in line. Default 1. Unused with a Pool: its servers have slots.
	Concurrency int
	// CallTimeout bounds each call to a model server (show, one streamed
	// chat).
	// Default DefaultCallTimeout.
	CallTimeout time.Duration
	// ToolTimeout bounds each tool call (TOOL_TIMEOUT); a call past it
	// returns "Error: <tool> timed out after …" to the model and the turn
	// goes on. Default DefaultToolTimeout.
	ToolTimeout time.Duration
	// Logger receives recorder failures. Default slog.Default().
	Logger *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// QueueWait, when set, learns how long each call waited for a slot
	// (0 when one was free), for metrics. It must be quick.
	QueueWait func(wait time.Duration)
}

// Pipeline runs turns against the model servers of its Pool. It is safe
// for concurrent use.
type Pipeline struct {
	pool        *Pool
	recorder    Recorder
	observer    func(Call)
	logger      *slog.Logger
	now         func() time.Time
	callTimeout time.Duration
	toolTimeout time.Duration
	queueWait   func(time.Duration)

	installedModels installedCache // for VisionModels
}

// New returns a Pipeline; zero Options fields take their defaults.
func New(opts Options) *Pipeline {
	p := &Pipeline{
		pool:        opts.Pool,
		recorder:    opts.Recorder,
		observer:    opts.Observe,
		logger:      opts.Logger,
		now:         opts.Now,
		callTimeout: opts.CallTimeout,
		toolTimeout: opts.ToolTimeout,
		queueWait:   opts.QueueWait,
	}
	if p.logger == nil {
		p.logger = slog.Default()
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.callTimeout <= 0 {
		p.callTimeout = DefaultCallTimeout
	}
	if p.toolTimeout <= 0 {
		p.toolTimeout = DefaultToolTimeout
	}
	if p.pool == nil {
		p.pool = NewPool(PoolOptions{
			Servers:     []PoolServer{{Name: "ollama", Kind: "ollama", Backend: opts.Client, Slots: max(opts.Concurrency, 1)}},
			Logger:      p.logger,
			Now:         p.now,
			CallTimeout: p.callTimeout,
		})
	}
	return p
}

// Pool is the pipeline's model servers.
func (p *Pipeline) Pool() *Pool { return p.pool }

// QueueLen is the number of turns waiting for a chat slot right now, in
// the whole pool.
func (p *Pipeline) QueueLen() int { return p.pool.QueueLen() }

// Background runs fn, a model call made outside any turn, holding a slot
// of a server of the pool (any server: fn makes its own call). It waits
// behind every turn a user is waiting for, so housekeeping shares the
// servers without delaying answers already in line.
func (p *Pipeline) Background(ctx context.Context, fn func(ctx context.Context) error) error {
	s, err := p.acquire(ctx, "", true, nil, func(int) error { return nil })
	if err != nil {
		return fmt.Errorf("wait for a background slot: %w", err)
	}
	defer s.release()
	return fn(ctx)
}

// acquire takes a slot for model and reports how long that took.
func (p *Pipeline) acquire(ctx context.Context, model string, background bool, exclude []*server, queued func(position int) error) (*slot, error) {
	start := p.now()
	s, err := p.pool.acquire(ctx, model, background, exclude, queued)
	if err == nil && p.queueWait != nil {
		p.queueWait(p.now().Sub(start))
	}
	return s, err
}

// Request is one turn to run.
type Request struct {
	Model    string
	Messages []api.Message // the whole context: system, history, the user's message
	Tools    ToolSet       // nil offers no tools
	// Think asks for a separate thinking stream. It is sent only to models
	// with the "thinking" capability, which would otherwise refuse it.
	Think     *api.ThinkValue
	Options   map[string]any
	KeepAlive *api.Duration
}
