package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// MaxToolRounds is how many rounds of tool calls a turn may make; the call
// after the last round offers no tools, so the model must answer.
const MaxToolRounds = 5

// DefaultCallTimeout bounds each call to Ollama when Options.CallTimeout is 0.
const DefaultCallTimeout = 5 * time.Minute

// DefaultToolTimeout bounds each tool call when Options.ToolTimeout is 0
// (TOOL_TIMEOUT).
const DefaultToolTimeout = 60 * time.Second

// ChatClient is the part of the Ollama API the pipeline uses; *api.Client
// satisfies it.
type ChatClient interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
}

var _ ChatClient = (*api.Client)(nil)

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
	// Client talks to Ollama. Required.
	Client ChatClient
	// Recorder keeps every chat call; nil keeps nothing.
	Recorder Recorder
	// Observe, when set, learns of every call, chat and embedding (for
	// metrics). It must be quick.
	Observe func(Call)
	// Concurrency is the number of chat calls in flight across all turns;
	// others wait in line. Default 1.
	Concurrency int
	// CallTimeout bounds each call to Ollama (show, one streamed chat).
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

// Pipeline runs turns against Ollama. It is safe for concurrent use.
type Pipeline struct {
	client      ChatClient
	recorder    Recorder
	observer    func(Call)
	logger      *slog.Logger
	now         func() time.Time
	callTimeout time.Duration
	toolTimeout time.Duration
	queue       *queue
	queueWait   func(time.Duration)

	capMu sync.Mutex
	caps  map[string]Capabilities

	installedModels installedCache // for VisionModels
}

// New returns a Pipeline; zero Options fields take their defaults.
func New(opts Options) *Pipeline {
	p := &Pipeline{
		client:      opts.Client,
		recorder:    opts.Recorder,
		observer:    opts.Observe,
		logger:      opts.Logger,
		now:         opts.Now,
		callTimeout: opts.CallTimeout,
		toolTimeout: opts.ToolTimeout,
		queueWait:   opts.QueueWait,
		caps:        map[string]Capabilities{},
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
	p.queue = newQueue(max(opts.Concurrency, 1))
	return p
}

// QueueLen is the number of turns waiting for a chat slot right now.
func (p *Pipeline) QueueLen() int { return p.queue.len() }

// Background runs fn, a model call made outside any turn (a summary, tags),
// holding one of the Concurrency slots. It waits behind every turn a user is
// waiting for, so housekeeping shares the model without delaying answers
// already in line.
func (p *Pipeline) Background(ctx context.Context, fn func(ctx context.Context) error) error {
	if err := p.acquire(ctx, true, func(int) error { return nil }); err != nil {
		return fmt.Errorf("wait for a background slot: %w", err)
	}
	defer p.queue.release()
	return fn(ctx)
}

// acquire takes a slot of the queue and reports how long that took.
func (p *Pipeline) acquire(ctx context.Context, background bool, queued func(position int) error) error {
	start := p.now()
	err := p.queue.acquire(ctx, background, queued)
	if err == nil && p.queueWait != nil {
		p.queueWait(p.now().Sub(start))
	}
	return err
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
