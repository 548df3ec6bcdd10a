package openaicompat

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"

	"github.com/yorozu-bot/yorozu/llm"
)

// InvalidArgumentsKey is the one argument a tool call gets when the server
// sent arguments that are not a JSON object: it holds the text as sent.
// No tool declares it, so the tool registry refuses the call with an error
// the model reads ("Error: …") and the loop goes on, as for any bad
// arguments.
const InvalidArgumentsKey = "invalid_json_arguments"

// Chat posts req to /chat/completions and calls fn with each response of
// the stream (one, when req.Stream is false), the last with Done.
func (c *Client) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	params, err := chatParams(req)
	if err != nil {
		return fmt.Errorf("chat %s: %w", req.Model, err)
	}
	images := hasImages(req.Messages)
	if req.Stream != nil && !*req.Stream {
		return c.interpret(ctx, "chat", req.Model, images, c.whole(ctx, req, params, fn))
	}
	params.StreamOptions.IncludeUsage = openai.Bool(true)
	return c.interpret(ctx, "chat", req.Model, images, c.stream(ctx, req, params, fn))
}

// whole makes one call that is not streamed.
func (c *Client) whole(ctx context.Context, req *api.ChatRequest, params openai.ChatCompletionNewParams, fn api.ChatResponseFunc) error {
	began := c.now()
	var res *openai.ChatCompletion
	err := c.withRetry(ctx, func() error {
		var err error
		res, err = c.oa.Chat.Completions.New(ctx, params)
		return err
	})
	if err != nil {
		return err
	}
	if !res.JSON.Choices.Valid() || len(res.Choices) == 0 {
		return &llm.BadAnswerError{Server: c.server, What: "JSON without choices to POST /chat/completions: " + shorten(res.RawJSON(), 200)}
	}
	choice := res.Choices[0]
	var calls toolCalls
	for i, tc := range choice.Message.ToolCalls {
		calls.add(i, tc.ID, tc.Function.Name, tc.Function.Arguments)
	}
	msg := api.Message{
		Role:      "assistant",
		Content:   choice.Message.Content,
		Thinking:  reasoning(choice.Message.JSON.ExtraFields),
		ToolCalls: calls.done(c.newID),
	}
	return fn(api.ChatResponse{
		Model: req.Model, CreatedAt: c.now(), Message: msg, Done: true,
		DoneReason: doneReason(string(choice.FinishReason)),
		Metrics: api.Metrics{
			PromptEvalCount: int(res.Usage.PromptTokens), EvalCount: int(res.Usage.CompletionTokens),
			TotalDuration: c.now().Sub(began),
		},
	})
}

// stream makes one streamed call. Text and thinking go to fn as they come;
// tool calls, assembled from their deltas, go with the final response.
func (c *Client) stream(ctx context.Context, req *api.ChatRequest, params openai.ChatCompletionNewParams, fn api.ChatResponseFunc) error {
	began := c.now()
	sctx := context.WithValue(ctx, streamKey{}, true)
	var (
		calls   toolCalls
		finish  string
		metrics api.Metrics
		chunks  int
	)
	err := c.withRetry(ctx, func() error {
		s := c.oa.Chat.Completions.NewStreaming(sctx, params)
		defer s.Close()
		for s.Next() {
			chunks++
			ch := s.Current()
			if !ch.JSON.Choices.Valid() && !ch.JSON.Usage.Valid() {
				return &llm.BadAnswerError{Server: c.server, What: "an event of unexpected shape in the chat stream: " + shorten(ch.RawJSON(), 200)}
			}
			if ch.JSON.Usage.Valid() {
				metrics.PromptEvalCount, metrics.EvalCount = int(ch.Usage.PromptTokens), int(ch.Usage.CompletionTokens)
			}
			if len(ch.Choices) == 0 {
				continue
			}
			choice := ch.Choices[0]
			d := choice.Delta
			for _, tc := range d.ToolCalls {
				calls.add(int(tc.Index), tc.ID, tc.Function.Name, tc.Function.Arguments)
			}
			if choice.FinishReason != "" {
				finish = choice.FinishReason
			}
			think := reasoning(d.JSON.ExtraFields)
			if d.Content == "" && think == "" {
				continue
			}
			msg := api.Message{Role: "assistant", Content: d.Content, Thinking: think}
			if err := fn(api.ChatResponse{Model: req.Model, CreatedAt: c.now(), Message: msg}); err != nil {
				return callbackError{err}
			}
		}
		return s.Err()
	})
	if cb, ok := err.(callbackError); ok {
		return cb.err
	}
	if err != nil {
		return err
	}
	if finish == "" {
		// The connection ended without the server saying the answer was
		// complete: what came stays, the turn fails, nothing is repeated.
		return fmt.Errorf("the stream ended before the answer was complete (%d events)", chunks)
	}
	metrics.TotalDuration = c.now().Sub(began)
	return fn(api.ChatResponse{
		Model: req.Model, CreatedAt: c.now(), Done: true, DoneReason: doneReason(finish),
		Message: api.Message{Role: "assistant", ToolCalls: calls.done(c.newID)},
		Metrics: metrics,
	})
}

// callbackError carries fn's own error past interpret untouched.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }
func (e callbackError) Unwrap() error { return e.err }

// newID names a tool call the server sent without an id, so that its result
// can still refer to it.
func (c *Client) newID() string {
	return fmt.Sprintf("call_yorozu_%d", c.ids.Add(1))
}

// doneReason words finish_reason as Ollama's done_reason.
func doneReason(finish string) string {
	switch finish {
	case "length":
		return "length"
	default:
		return "stop"
	}
}

// reasoning is the thinking text a server sends beside the content:
// reasoning_content (DeepSeek, vLLM, llama-server) or reasoning (OpenRouter,
// LM Studio).
func reasoning(extra map[string]respjson.Field) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		f, ok := extra[key]
		if !ok { // extra fields never count as Valid: read the raw JSON
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// toolCalls assembles tool calls from stream deltas: keyed by index, the id
// and name from the deltas that carry them, the arguments concatenated.
type toolCalls struct {
	order []int
	byIdx map[int]*pendingCall
}

type pendingCall struct {
	id, name string
	args     strings.Builder
}

func (t *toolCalls) add(index int, id, name, args string) {
	if t.byIdx == nil {
		t.byIdx = map[int]*pendingCall{}
	}
	p, ok := t.byIdx[index]
	if !ok {
		p = &pendingCall{}
		t.byIdx[index] = p
		t.order = append(t.order, index)
	}
	if id != "" {
		p.id = id
	}
	// Some servers repeat the whole name in every delta, others split it.
	if strings.HasPrefix(name, p.name) {
		p.name = name
	} else {
		p.name += name
	}
	p.args.WriteString(args)
}

// done returns the assembled calls in the order they began. Arguments that
// are not a JSON object are kept as text under InvalidArgumentsKey.
func (t *toolCalls) done(newID func() string) []api.ToolCall {
	if len(t.order) == 0 {
		return nil
	}
	out := make([]api.ToolCall, 0, len(t.order))
	for i, idx := range t.order {
		p := t.byIdx[idx]
		args := api.NewToolCallFunctionArguments()
		raw := strings.TrimSpace(p.args.String())
		if raw != "" && raw != "null" {
			var obj map[string]json.RawMessage
			if json.Unmarshal([]byte(raw), &obj) != nil || json.Unmarshal([]byte(raw), &args) != nil {
				args = api.NewToolCallFunctionArguments()
				args.Set(InvalidArgumentsKey, raw)
			}
		}
		id := p.id
		if id == "" {
			id = newID()
		}
		out = append(out, api.ToolCall{ID: id, Function: api.ToolCallFunction{Index: i, Name: p.name, Arguments: args}})
	}
	return out
}

// chatParams translates an Ollama chat request to chat completion params.
func chatParams(req *api.ChatRequest) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	for _, m := range req.Messages {
		msg, err := message(m)
		if err != nil {
			return p, err
		}
		p.Messages = append(p.Messages, msg)
	}
	for _, t := range req.Tools {
		params, err := toMap(t.Function.Parameters)
		if err != nil {
			return p, fmt.Errorf("tool %s parameters: %w", t.Function.Name, err)
		}
		def := shared.FunctionDefinitionParam{Name: t.Function.Name, Parameters: params}
		if t.Function.Description != "" {
			def.Description = openai.String(t.Function.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(def))
	}
	if err := responseFormat(&p, req.Format); err != nil {
		return p, err
	}
	options(&p, req.Options)
	if req.Think != nil {
		if level, ok := req.Think.Value.(string); ok && (level == "low" || level == "medium" || level == "high") {
			p.ReasoningEffort = shared.ReasoningEffort(level)
		}
	}
	return p, nil
}

// message translates one message. Thinking of earlier answers is not sent
// back: chat completions has no place for it.
func message(m api.Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case "system":
		return openai.SystemMessage(m.Content), nil
	case "assistant":
		msg := openai.AssistantMessage(m.Content)
		for _, tc := range m.ToolCalls {
			args, err := json.Marshal(tc.Function.Arguments)
			if err != nil {
				return msg, fmt.Errorf("tool call %s arguments: %w", tc.Function.Name, err)
			}
			msg.OfAssistant.ToolCalls = append(msg.OfAssistant.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Function.Name, Arguments: string(args)},
				},
			})
		}
		return msg, nil
	case "tool":
		return openai.ToolMessage(m.Content, m.ToolCallID), nil
	case "user", "":
		if len(m.Images) == 0 {
			return openai.UserMessage(m.Content), nil
		}
		parts := make([]openai.ChatCompletionContentPartUnionParam, 0, len(m.Images)+1)
		if m.Content != "" {
			parts = append(parts, openai.TextContentPart(m.Content))
		}
		for _, img := range m.Images {
			parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(img)}))
		}
		return openai.UserMessage(parts), nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("message role %q is not one chat completions knows", m.Role)
}

// dataURL writes image bytes as a data URL with their sniffed type.
func dataURL(img api.ImageData) string {
	return "data:" + http.DetectContentType(img) + ";base64," + base64.StdEncoding.EncodeToString(img)
}

func hasImages(msgs []api.Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

// responseFormat maps Ollama's format: "json" asks for a JSON object, a
// JSON schema (the structured-output fallback) for that schema.
func responseFormat(p *openai.ChatCompletionNewParams, format json.RawMessage) error {
	f := strings.TrimSpace(string(format))
	switch {
	case f == "" || f == "null" || f == `""`:
		return nil
	case f == `"json"`:
		p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
		return nil
	}
	var schema map[string]any
	if err := json.Unmarshal(format, &schema); err != nil {
		return fmt.Errorf("format is neither \"json\" nor a JSON schema: %w", err)
	}
	p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
		JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "reply", Schema: schema},
	}
	return nil
}

// options maps the Ollama options that chat completions has; the rest
// (num_ctx, repeat_penalty, …) are the server's own settings there.
func options(p *openai.ChatCompletionNewParams, opts map[string]any) {
	num := func(key string) (float64, bool) {
		switch v := opts[key].(type) {
		case float64:
			return v, true
		case float32:
			return float64(v), true
		case int:
			return float64(v), true
		case int64:
			return float64(v), true
		case json.Number:
			f, err := v.Float64()
			return f, err == nil
		}
		return 0, false
	}
	if v, ok := num("temperature"); ok {
		p.Temperature = openai.Float(v)
	}
	if v, ok := num("top_p"); ok {
		p.TopP = openai.Float(v)
	}
	if v, ok := num("num_predict"); ok && v > 0 {
		p.MaxTokens = openai.Int(int64(v))
	}
	if v, ok := num("seed"); ok {
		p.Seed = openai.Int(int64(v))
	}
	if v, ok := num("frequency_penalty"); ok {
		p.FrequencyPenalty = openai.Float(v)
	}
	if v, ok := num("presence_penalty"); ok {
		p.PresencePenalty = openai.Float(v)
	}
	switch stop := opts["stop"].(type) {
	case []string:
		p.Stop.OfStringArray = stop
	case []any:
		for _, s := range stop {
			if s, ok := s.(string); ok {
				p.Stop.OfStringArray = append(p.Stop.OfStringArray, s)
			}
		}
	case string:
		p.Stop.OfString = param.NewOpt(stop)
	}
}

// toMap turns a value into the generic JSON object openai-go sends.
func toMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}
