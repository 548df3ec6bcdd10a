package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// toolMode is how tools are offered to a model.
type toolMode int

const (
	noTools       toolMode = iota
	nativeTools            // the model has the "tools" capability
	fallbackTools          // tools through structured output
)

// Run runs one turn: it streams events to emit as they happen and returns
// what the turn produced. It ends with Done, or with Failed and the same
// error as it returns. emit may be nil. An error from emit (the listener is gone) stops the
// turn and is returned without a Failed event.
func (p *Pipeline) Run(ctx context.Context, req Request, emit func(Event) error) (Result, error) {
	if emit == nil {
		emit = func(Event) error { return nil }
	}
	t := &turn{p: p, req: req, emit: emit, start: p.now()}
	// The calls are recorded once the user has the answer (Done or Failed
	// sent), still before Run returns.
	defer t.recordCalls()
	err := t.run(ctx)
	t.metrics.Wall = p.now().Sub(t.start)
	res := Result{Content: t.content.String(), Messages: t.added, Metrics: t.metrics}
	if err != nil {
		if t.emitErr == nil {
			_ = emit(Failed{Err: err})
		}
		return res, err
	}
	if err := t.send(Done{Metrics: t.metrics}); err != nil {
		return res, err
	}
	return res, nil
}

// turn is the state of one Run.
type turn struct {
	p       *Pipeline
	req     Request
	emit    func(Event) error
	emitErr error
	start   time.Time
	metrics Metrics
	content strings.Builder // every visible Text emitted
	added   []api.Message
	// freshCall is true until the current call emitted visible text; it
	// decides whether to drop leading blank lines or separate rounds.
	freshCall bool
	// unrecorded are the calls made so far, for the Recorder.
	unrecorded []func()
	// toolChars is what the tool results sent back so far add up to
	// (runes), against MaxTurnChars.
	toolChars int
	// tools is the JSON of the tools offered natively, when the ToolSet
	// keeps it (EncodedTools); nil otherwise.
	tools []byte
}

// recordCalls hands every call of the turn to the Recorder.
func (t *turn) recordCalls() {
	for _, record := range t.unrecorded {
		record()
	}
	t.unrecorded = nil
}

func (t *turn) send(ev Event) error {
	if err := t.emit(ev); err != nil {
		t.emitErr = err
		return fmt.Errorf("emit %T: %w", ev, err)
	}
	return nil
}

// text emits visible text, dropping whitespace before the answer starts and
// separating the text of a later call from what came before.
func (t *turn) text(s string) error {
	if t.freshCall {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return nil
		}
		if t.content.Len() > 0 {
			s = "\n\n" + s
		}
		t.freshCall = false
	}
	if s == "" {
		return nil
	}
	t.content.WriteString(s)
	return t.send(Text{Text: s})
}

func (t *turn) thinking(s string) error {
	if s == "" {
		return nil
	}
	return t.send(Thinking{Text: s})
}

func (t *turn) run(ctx context.Context) error {
	caps, err := t.p.Capabilities(ctx, t.req.Model)
	if err != nil {
		return err
	}
	mode := noTools
	var defs api.Tools
	if t.req.Tools != nil {
		defs = t.req.Tools.Definitions()
	}
	if len(defs) > 0 {
		mode = fallbackTools
		if caps.Tools {
			mode = nativeTools
			t.tools = toolsJSON(t.req.Tools)
		}
	}
	for round := 0; ; round++ {
		offer := mode != noTools && round < MaxToolRounds
		chatReq := t.request(mode, offer, defs, caps)
		msg, err := t.call(ctx, chatReq, mode == fallbackTools)
		if err != nil {
			return err
		}
		if mode == fallbackTools {
			answer, calls := parseStructured(msg.Content)
			if len(calls) > 0 && offer {
				answer = "" // a preamble next to tool calls is not the answer
			}
			msg.Content, msg.ToolCalls = answer, calls
			if err := t.text(answer); err != nil {
				return err
			}
		}
		if !offer {
			msg.ToolCalls = nil // the model was told to answer; calls now are noise
		}
		calls := msg.ToolCalls
		t.added = append(t.added, msg)
		if len(calls) == 0 {
			return nil
		}
		if err := t.runTools(ctx, calls); err != nil {
			return err
		}
	}
}

// request builds the chat request for the next call.
func (t *turn) request(mode toolMode, offer bool, defs api.Tools, caps Capabilities) *api.ChatRequest {
	stream := true
	r := &api.ChatRequest{
		Model:     t.req.Model,
		Messages:  slices.Concat(t.req.Messages, t.added),
		Stream:    &stream,
		Options:   t.req.Options,
		KeepAlive: t.req.KeepAlive,
	}
	if caps.Thinking {
		r.Think = t.req.Think
	}
	if !caps.Vision {
		r.Messages = withoutImages(r.Messages)
	}
	switch mode {
	case nativeTools:
		if offer {
			r.Tools = defs
		}
	case fallbackTools:
		r.Messages = structuredMessages(r.Messages, defs, offer)
		r.Format = structuredFormat(defs, offer)
	}
	return r
}

// runTools runs one round of tool calls in order and adds their trimmed
// results to the conversation.
func (t *turn) runTools(ctx context.Context, calls []api.ToolCall) error {
	results := make([]string, len(calls))
	errs := make([]error, len(calls))
	durations := make([]time.Duration, len(calls))
	for i, c := range calls {
		args, err := json.Marshal(c.Function.Arguments)
		if err != nil {
			args = []byte("{}")
		}
		if err := t.send(ToolStarted{Name: c.Function.Name, Arguments: string(args)}); err != nil {
			return err
		}
		start := t.p.now()
		out, err := t.p.callTool(ctx, t.req.Tools, c.Function.Name, args)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("tool %s: %w", c.Function.Name, ctxErr)
		}
		durations[i] = t.p.now().Sub(start)
		if err != nil {
			out = "Error: " + err.Error()
			errs[i] = err
		}
		results[i] = out
	}
	trimmed := TrimResults(results, MaxTurnChars-t.toolChars)
	for _, r := range trimmed {
		t.toolChars += utf8.RuneCountInString(r)
	}
	for i, c := range calls {
		if err := t.send(ToolFinished{Name: c.Function.Name, Result: trimmed[i], Err: errs[i], Duration: durations[i]}); err != nil {
			return err
		}
		t.added = append(t.added, api.Message{
			Role:       "tool",
			Content:    trimmed[i],
			ToolName:   c.Function.Name,
			ToolCallID: c.ID,
		})
	}
	return nil
}

// call makes one streamed chat call, holding a slot of a server that has
// the model, and returns the assistant message. Visible text is emitted as
// it arrives, unless structured is set (the content is JSON to parse
// first). A server that fails before anything was shown (unreachable, 5xx,
// a stream broken before any text; or not having the model after all) is
// left for another that has the model; once text was shown the failure is
// the turn's, so nothing is said twice.
func (t *turn) call(ctx context.Context, req *api.ChatRequest, structured bool) (api.Message, error) {
	var tried []*server
	for {
		s, err := t.p.acquire(ctx, req.Model, false, tried, func(pos int) error { return t.send(Queued{Position: pos}) })
		if err != nil {
			if t.emitErr != nil {
				return api.Message{}, err
			}
			return api.Message{}, fmt.Errorf("wait for a chat slot: %w", err)
		}
		msg, shown, err := t.callOn(ctx, s, req, structured)
		s.release()
		if err == nil || shown || t.emitErr != nil || ctx.Err() != nil {
			return msg, err
		}
		switch {
		case errors.Is(err, ErrModelNotFound):
			t.p.pool.forget(s.srv, req.Model)
		case errors.Is(err, ErrUnavailable):
			t.p.pool.markDown(s.srv, err)
		default:
			return msg, err
		}
		tried = append(tried, s.srv)
		if !t.p.pool.another(req.Model, tried) {
			return msg, err
		}
	}
}

// callOn makes the call on the slot's server; shown says whether the user
// saw any of it (text, or tool calls to run).
func (t *turn) callOn(ctx context.Context, s *slot, req *api.ChatRequest, structured bool) (_ api.Message, shown bool, err error) {
	before := t.content.Len()
	t.freshCall = true
	callCtx, cancel := context.WithTimeout(ctx, t.p.callTimeout)
	defer cancel()

	var (
		split    thinkSplitter
		content  strings.Builder
		thinking strings.Builder
		calls    []api.ToolCall
		final    *api.ChatResponse
		cbErr    error
		first    time.Duration
	)
	handle := func(visible, think string) error {
		content.WriteString(visible)
		thinking.WriteString(think)
		if err := t.thinking(think); err != nil {
			return err
		}
		if structured {
			return nil
		}
		return t.text(visible)
	}
	began := t.p.now()
	err = t.chat(callCtx, s.srv.Backend, req, func(r api.ChatResponse) error {
		if first == 0 && (r.Message.Content != "" || r.Message.Thinking != "" || len(r.Message.ToolCalls) > 0) {
			first = t.p.now().Sub(began)
		}
		if err := t.thinking(r.Message.Thinking); err != nil {
			cbErr = err
			return err
		}
		thinking.WriteString(r.Message.Thinking)
		visible, think := split.Feed(r.Message.Content)
		if err := handle(visible, think); err != nil {
			cbErr = err
			return err
		}
		calls = append(calls, r.Message.ToolCalls...)
		if r.Done {
			final = &r
		}
		return nil
	})
	latency := t.p.now().Sub(began)
	switch {
	case cbErr != nil:
		err = cbErr
	case err != nil:
		err = InterpretError(ctx, "chat", req.Model, err)
	case final == nil:
		// api.Client ends quietly when the connection drops mid-stream.
		err = fmt.Errorf("chat %s: %w: stream ended before done", req.Model, ErrUnavailable)
	default:
		err = handle(split.Flush())
	}

	var metrics api.Metrics
	if final != nil {
		metrics = final.Metrics
	}
	t.metrics.Calls++
	t.metrics.PromptTokens += metrics.PromptEvalCount
	t.metrics.CompletionTokens += metrics.EvalCount
	t.metrics.Total += metrics.TotalDuration
	text := content.String()
	callErr := err
	t.unrecorded = append(t.unrecorded, func() { t.p.record(ctx, req, t.tools, text, calls, callErr, began, latency, first, metrics) })
	shown = t.content.Len() > before || len(calls) > 0
	if err != nil {
		return api.Message{}, shown, err
	}
	return api.Message{Role: "assistant", Content: content.String(), Thinking: thinking.String(), ToolCalls: calls}, shown, nil
}

// ErrToolTimeout marks a tool call that ran past the tool timeout.
var ErrToolTimeout = errors.New("timed out")

// callTool runs one tool call with the tool timeout. A tool that does not
// heed its context is left behind at the deadline (its goroutine ends when
// the call returns), so a hung tool never holds up the turn.
func (p *Pipeline) callTool(ctx context.Context, ts ToolSet, name string, args json.RawMessage) (string, error) {
	callCtx, cancel := context.WithTimeoutCause(ctx, p.toolTimeout, ErrToolTimeout)
	defer cancel()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("tool %s panicked: %v", name, r)}
			}
		}()
		out, err := ts.Call(callCtx, name, args)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		// A tool that gave up at the deadline reports its own context error;
		// say what happened instead.
		if r.err == nil || ctx.Err() != nil || !errors.Is(context.Cause(callCtx), ErrToolTimeout) {
			return r.out, r.err
		}
	case <-callCtx.Done():
		if err := ctx.Err(); err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("%s %w after %s", name, ErrToolTimeout, shortDuration(p.toolTimeout))
}

// shortDuration writes whole seconds as "60s" rather than "1m0s".
func shortDuration(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// encodedChatter is a Backend that takes the tools' JSON made already;
// *Client is one.
type encodedChatter interface {
	chatEncoded(ctx context.Context, req *api.ChatRequest, tools []byte, fn api.ChatResponseFunc) error
}

// chat makes one call through b, with the tools' JSON the turn keeps when
// b takes it.
func (t *turn) chat(ctx context.Context, b Backend, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	if c, ok := b.(encodedChatter); ok && req.Tools != nil && t.tools != nil {
		return c.chatEncoded(ctx, req, t.tools, fn)
	}
	return b.Chat(ctx, req, fn)
}
