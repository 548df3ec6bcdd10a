package llm

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// recordTimeout bounds a RecordCall; the record is written even when the
// turn's context was cancelled, since failed calls are the ones worth keeping.
const recordTimeout = 10 * time.Second

// record hands one chat call to Observe and the Recorder.
// tools is the JSON of req.Tools when made already, else nil.
func (p *Pipeline) record(ctx context.Context, req *api.ChatRequest, tools []byte, content string, calls []api.ToolCall, callErr error, at time.Time, latency, first time.Duration, m api.Metrics) {
	if p.recorder == nil && p.observer == nil {
		return
	}
	body, err := requestJSON(req, tools)
	if err != nil {
		body = nil
	}
	c := Call{
		Model:            req.Model,
		Request:          body,
		Response:         responseText(content, calls),
		Latency:          latency,
		PromptTokens:     m.PromptEvalCount,
		CompletionTokens: m.EvalCount,
		At:               at,
		Kind:             KindOf(ctx),
		Outcome:          Outcome(callErr),
		FirstToken:       first,
		EvalDuration:     m.EvalDuration,
	}
	if callErr != nil {
		c.Err = callErr.Error()
	}
	p.observe(c)
	if p.recorder == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := p.recorder.RecordCall(ctx, c); err != nil {
		p.logger.ErrorContext(ctx, "record llm call", slog.String("component", "call_log"), slog.String("model", req.Model), slog.Any("err", err))
	}
}

// observe hands c to Options.Observe, if set.
func (p *Pipeline) observe(c Call) {
	if p.observer != nil {
		p.observer(c)
	}
}

// responseText renders a reply for the log: the content, then one line per
// tool call.
func responseText(content string, calls []api.ToolCall) string {
	var b strings.Builder
	b.WriteString(content)
	for _, c := range calls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		args, _ := json.Marshal(c.Function.Arguments)
		b.WriteString("[tool_call] ")
		b.WriteString(c.Function.Name)
		b.WriteByte(' ')
		b.Write(args)
	}
	return b.String()
}
