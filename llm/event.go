package llm

import (
	"time"

	"github.com/ollama/ollama/api"
)

// Event is one step of a streamed turn. Adapters (Discord, web) render events;
// the pipeline never knows who is listening.
type Event interface{ event() }

// Queued reports that the turn waits for an LLM slot. Position 1 means next.
type Queued struct{ Position int }

// ToolStarted reports that the model called a tool and it is running.
type ToolStarted struct {
	Name      string
	Arguments string // compact JSON, for status lines
}

// ToolFinished reports a tool call's outcome. Result is what goes back to the
// model (already trimmed); Err is set when the tool failed.
type ToolFinished struct {
	Name     string
	Result   string
	Err      error
	Duration time.Duration
}

// Thinking carries reasoning text. Adapters must never show it to users.
type Thinking struct{ Text string }

// Text is a chunk of the visible answer, in order. Thinking has been removed.
type Text struct{ Text string }

// File is a file that goes with the answer, such as the weather chart. An
// adapter shows it after the answer's text.
type File struct {
	Name        string // e.g. forecast.png
	ContentType string // e.g. image/png
	Data        []byte
}

// Offer is something proposed during the turn that only its user may
// accept (a fact to keep, a poll, an event); an adapter shows it after the
// answer with its two buttons. Like File, it may come after Done.
type Offer struct {
	ID      int64 // the stored offer, which a press decides
	Kind    string
	Preview string
	Accept  string // the accepting button's label
	Decline string // the declining one's
}

// Done closes a successful turn.
type Done struct{ Metrics Metrics }

// Failed closes a turn that could not complete; Run returns the same error.
type Failed struct{ Err error }

func (Queued) event()       {}
func (ToolStarted) event()  {}
func (ToolFinished) event() {}
func (Thinking) event()     {}
func (Text) event()         {}
func (File) event()         {}
func (Offer) event()        {}
func (Done) event()         {}
func (Failed) event()       {}

// Metrics sums a turn's LLM calls.
type Metrics struct {
	Calls            int           // LLM calls made in this turn
	PromptTokens     int           // sum of prompt_eval_count
	CompletionTokens int           // sum of eval_count
	Total            time.Duration // sum of total_duration as Ollama reports it
	Wall             time.Duration // wall time of the turn, queueing included
}

// Result is what a finished turn produced.
type Result struct {
	Content  string        // the visible answer, thinking removed
	Messages []api.Message // assistant and tool messages added during the turn
	Metrics  Metrics
}
