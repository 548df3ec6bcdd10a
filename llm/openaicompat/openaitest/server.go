// Package openaitest is a fake OpenAI-compatible model server that speaks
// the real HTTP protocol (GET /v1/models, POST /v1/chat/completions as an
// SSE stream of chunks ending in "data: [DONE]" or as one JSON answer,
// POST /v1/embeddings), so tests run the real openai-go client against
// scripted model replies. Its API follows llm/ollamatest's.
//
// Chat replies come, in this order, from the FIFO filled by Script, from the
// function set with Handle, or else echo the last user message. Every chat
// request is recorded, decoded from the wire, for assertions. A model's
// capabilities (AddModel) decide what it refuses as a real server would: a
// request with tools to a model without "tools" gets a 400 saying tools are
// not supported, images to a model without "vision" a 400 about images.
// Faults are scripted per reply (Status, HTML, Cut, RetryAfter, Raw events)
// or for every request (Down, Status, RequireKey). Gates (Reply.Gate,
// Chunk.Wait) hold a reply until the test releases it.
package openaitest

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/internal/servetest"
)

// ToolCallDelta is one piece of a streamed tool call, as OpenAI sends it:
// the first piece of a call carries its id and name, later ones more of
// its arguments.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// Chunk is one streamed event of a chat reply.
type Chunk struct {
	Content string
	// Reasoning is sent as reasoning_content (or as ReasoningField, e.g.
	// "reasoning").
	Reasoning      string
	ReasoningField string
	ToolCalls      []ToolCallDelta
	// Raw, when set, is sent as the event's data verbatim (a malformed or
	// unexpected event).
	Raw string
	// Wait holds this chunk until the channel is closed (or the request is
	// cancelled).
	Wait <-chan struct{}
}

// Usage is the token count of the final usage chunk.
type Usage struct {
	Prompt, Completion int
}

// Reply is one scripted answer to /v1/chat/completions.
type Reply struct {
	Chunks []Chunk
	// FinishReason goes on the last choice chunk; default "stop", or
	// "tool_calls" when a chunk calls tools.
	FinishReason string
	// Usage is sent in a last chunk without choices when the request asked
	// for it (stream_options.include_usage); nil sends a count of words.
	Usage *Usage
	// Status, when >= 400, answers with that status and an OpenAI error
	// body holding Message (default the status text).
	Status  int
	Message string
	// RetryAfter goes in the Retry-After header of a Status answer.
	RetryAfter string
	// HTML answers with an HTML page and this status (default 200).
	HTML bool
	// Cut drops the connection after the chunks, before the finish reason
	// and [DONE]: a stream broken mid-answer.
	Cut bool
	// Gate holds the whole reply until the channel is closed.
	Gate <-chan struct{}
	// Delay holds the reply this long before its first chunk (for demos and
	// end-to-end runs; prefer Gate in tests).
	Delay time.Duration
}

// Text is a reply streaming the given content chunks in order.
func Text(chunks ...string) Reply {
	r := Reply{}
	for _, c := range chunks {
		r.Chunks = append(r.Chunks, Chunk{Content: c})
	}
	return r
}

// ToolCall is a reply calling one tool, as servers stream it: the id and
// name first, then the arguments JSON in three pieces (split between
// characters, as tokens are).
func ToolCall(id, name, arguments string) Reply {
	r := []rune(arguments)
	third := len(r) / 3
	return Reply{Chunks: []Chunk{
		{ToolCalls: []ToolCallDelta{{ID: id, Name: name}}},
		{ToolCalls: []ToolCallDelta{{Arguments: string(r[:third])}}},
		{ToolCalls: []ToolCallDelta{{Arguments: string(r[third : 2*third])}}},
		{ToolCalls: []ToolCallDelta{{Arguments: string(r[2*third:])}}},
	}}
}

// Message is one chat message as it came over the wire.
type Message struct {
	Role       string
	Content    string   // the text, text parts joined
	Images     []string // image_url parts (data URLs)
	ToolCallID string
	ToolCalls  []WireToolCall
}

// WireToolCall is an assistant tool call sent back in the history.
type WireToolCall struct {
	ID, Name, Arguments string
}

// Request is one chat request as the server decoded it.
type Request struct {
	Model          string
	Messages       []Message
	Tools          []string // the offered tools' names
	ResponseFormat json.RawMessage
	Stream         bool
	IncludeUsage   bool
	MaxTokens      int
	Temperature    *float64
	Authorization  string
	// Raw is the whole body.
	Raw json.RawMessage
}

// Server is a fake OpenAI-compatible server. It is safe for concurrent use.
type Server struct {
	url *url.URL
	mux *http.ServeMux
	ln  *servetest.Listener

	mu         sync.Mutex
	models     map[string][]string
	order      []string
	script     []Reply
	handle     func(Request, time.Time) Reply
	embed      func(model, input string) []float32
	status     int
	key        string
	requests   []Request
	modelCalls int
	embedCalls int
	cancelled  chan struct{}
}

// New starts a fake server on a loopback port; it is closed in t.Cleanup.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{models: map[string][]string{}, embed: servetest.HashEmbed, cancelled: make(chan struct{}, 64)}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /v1/models", s.serveModels)
	s.mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	s.mux.HandleFunc("POST /v1/embeddings", s.serveEmbed)
	s.ln = servetest.Listen(t, s.mux)
	s.url = &url.URL{Scheme: "http", Host: s.ln.Addr(), Path: "/v1"}
	return s
}

// URL is the API root, e.g. http://127.0.0.1:41234/v1 (OPENAI_BASE_URL).
func (s *Server) URL() string { return s.url.String() }

// Down makes the server refuse connections; Up restores it on the same URL.
func (s *Server) Down() { s.ln.Down() }

// Up listens again on the same address after Down.
func (s *Server) Up() { s.ln.Up() }

// AddModel lists a model with what it can do: "tools", "vision",
// "embedding" (an embedding-only model refuses chat).
func (s *Server) AddModel(name string, caps ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.models[name]; !ok {
		s.order = append(s.order, name)
	}
	s.models[name] = caps
}

// RequireKey makes every endpoint answer 401 unless the request carries
// "Authorization: Bearer key"; "" accepts anything again.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// Status makes every endpoint answer with this status and an error body
// until Status(0).
func (s *Server) Status(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = code
}

// Script queues replies for the next chat requests, first in first out.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Handle sets a function that answers chat requests when nothing is
// scripted; nil restores the echo.
func (s *Server) Handle(f func(req Request) Reply) {
	if f == nil {
		s.HandleTimed(nil)
		return
	}
	s.HandleTimed(func(req Request, _ time.Time) Reply { return f(req) })
}

// HandleTimed is Handle with the time each request arrived (before its
// body was read), for benchmarks of the client's side.
func (s *Server) HandleTimed(f func(req Request, arrived time.Time) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handle = f
}

// SetEmbed replaces the deterministic embedding of /v1/embeddings.
func (s *Server) SetEmbed(f func(model, input string) []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == nil {
		f = servetest.HashEmbed
	}
	s.embed = f
}

// Requests returns the chat requests received so far, in order (the
// capability probes included).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ChatCalls is the number of chat requests received.
func (s *Server) ChatCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// ModelCalls is the number of GET /v1/models requests received.
func (s *Server) ModelCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modelCalls
}

// EmbedCalls is the number of /v1/embeddings requests received.
func (s *Server) EmbedCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedCalls
}

// Cancelled receives once for every chat reply whose client went away
// before it was complete (停止: the request was cancelled).
func (s *Server) Cancelled() <-chan struct{} { return s.cancelled }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in OpenAI's error shape.
func writeError(w http.ResponseWriter, code int, typ, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code}})
}

// refused answers the forced status or a missing key; true when it did.
func (s *Server) refused(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	status, key := s.status, s.key
	s.mu.Unlock()
	if status != 0 {
		writeError(w, status, "server_error", strings.ToLower(http.StatusText(status)))
		return true
	}
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "Incorrect API key provided.")
		return true
	}
	return false
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.modelCalls++
	names := slices.Clone(s.order)
	s.mu.Unlock()
	if s.refused(w, r) {
		return
	}
	data := make([]map[string]any, len(names))
	for i, n := range names {
		data[i] = map[string]any{"id": n, "object": "model", "created": 1700000000, "owned_by": "openaitest"}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) lookup(name string) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	caps, ok := s.models[name]
	return caps, ok
}

func (s *Server) serveEmbed(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.embedCalls++
	embed := s.embed
	s.mu.Unlock()
	if s.refused(w, r) {
		return
	}
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if _, ok := s.lookup(req.Model); !ok {
		writeError(w, http.StatusNotFound, "invalid_request_error", fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return
	}
	var inputs []string
	var one string
	if json.Unmarshal(req.Input, &one) == nil {
		inputs = []string{one}
	} else if err := json.Unmarshal(req.Input, &inputs); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "input must be a string or a list of strings")
		return
	}
	data := make([]map[string]any, len(inputs))
	words := 0
	for i, in := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": embed(req.Model, in)}
		words += len(strings.Fields(in))
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "model": req.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": words, "total_tokens": words}})
}

// wireRequest is the chat request body as servers read it.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat json.RawMessage `json:"response_format"`
	Stream         bool            `json:"stream"`
	StreamOptions  struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens   int      `json:"max_tokens"`
	Temperature *float64 `json:"temperature"`
}

func decode(body []byte) (Request, error) {
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return Request{}, err
	}
	req := Request{Model: wr.Model, ResponseFormat: wr.ResponseFormat, Stream: wr.Stream,
		IncludeUsage: wr.StreamOptions.IncludeUsage, MaxTokens: wr.MaxTokens, Temperature: wr.Temperature, Raw: body}
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	for _, m := range wr.Messages {
		msg := Message{Role: m.Role, ToolCallID: m.ToolCallID}
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			msg.Content = text
		} else {
			var parts []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			}
			if err := json.Unmarshal(m.Content, &parts); err != nil && len(m.Content) > 0 && string(m.Content) != "null" {
				return Request{}, fmt.Errorf("message content: %w", err)
			}
			var texts []string
			for _, p := range parts {
				switch p.Type {
				case "text":
					texts = append(texts, p.Text)
				case "image_url":
					msg.Images = append(msg.Images, p.ImageURL.URL)
				}
			}
			msg.Content = strings.Join(texts, "\n")
		}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, WireToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

// next picks the reply for a chat request: script, handler, then echo.
func (s *Server) next(req Request, arrived time.Time) Reply {
	s.mu.Lock()
	if len(s.script) > 0 {
		r := s.script[0]
		s.script = s.script[1:]
		s.mu.Unlock()
		return r
	}
	h := s.handle
	s.mu.Unlock()
	if h != nil {
		return h(req, arrived)
	}
	return Echo(req)
}

// Echo answers with the content of the last user message.
func Echo(req Request) Reply {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return Text(req.Messages[i].Content)
		}
	}
	return Text("")
}

// IsProbe reports whether req is a capability probe (one token asked).
func IsProbe(req Request) bool { return req.MaxTokens == 1 }

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	var body json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	req, err := decode(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	req.Authorization = r.Header.Get("Authorization")
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if s.refused(w, r) {
		return
	}
	caps, ok := s.lookup(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, "invalid_request_error", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model))
		return
	}
	switch {
	case slices.Contains(caps, "embedding"):
		writeError(w, http.StatusBadRequest, "invalid_request_error", "this model does not support chat completions")
		return
	case len(req.Tools) > 0 && !slices.Contains(caps, "tools"):
		writeError(w, http.StatusBadRequest, "invalid_request_error", "tools are not supported by this model")
		return
	case hasImages(req) && !slices.Contains(caps, "vision"):
		writeError(w, http.StatusBadRequest, "invalid_request_error", "image input is not supported by this model")
		return
	}
	if IsProbe(req) {
		s.whole(w, req, Text("OK"))
		return
	}
	reply := s.next(req, arrived)
	ctx := r.Context()
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			s.cancel()
			return
		}
	}
	if !s.wait(ctx, reply.Gate) {
		return
	}
	switch {
	case reply.HTML:
		code := reply.Status
		if code == 0 {
			code = http.StatusOK
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(code)
		_, _ = w.Write([]byte("<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Please sign in</h1></body></html>"))
		return
	case reply.Status >= 400:
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		msg := reply.Message
		if msg == "" {
			msg = strings.ToLower(http.StatusText(reply.Status))
		}
		writeError(w, reply.Status, "error", msg)
		return
	}
	if !req.Stream {
		s.whole(w, req, reply)
		return
	}
	s.stream(ctx, w, req, reply)
}

func hasImages(req Request) bool {
	for _, m := range req.Messages {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

func (s *Server) cancel() {
	select {
	case s.cancelled <- struct{}{}:
	default:
	}
}

// wait blocks until gate is closed; false when the request went away
// first (and then it counts as cancelled).
func (s *Server) wait(ctx context.Context, gate <-chan struct{}) bool {
	if !servetest.Wait(ctx, gate) {
		s.cancel()
		return false
	}
	return true
}

func finishReason(reply Reply) string {
	if reply.FinishReason != "" {
		return reply.FinishReason
	}
	for _, c := range reply.Chunks {
		if len(c.ToolCalls) > 0 {
			return "tool_calls"
		}
	}
	return "stop"
}

func usage(req Request, reply Reply) map[string]int {
	u := Usage{}
	if reply.Usage != nil {
		u = *reply.Usage
	} else {
		for _, m := range req.Messages {
			u.Prompt += len(strings.Fields(m.Content))
		}
		for _, c := range reply.Chunks {
			u.Completion += len(strings.Fields(c.Content))
		}
	}
	return map[string]int{"prompt_tokens": u.Prompt, "completion_tokens": u.Completion, "total_tokens": u.Prompt + u.Completion}
}

// stream sends the reply as chat.completion.chunk events.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, req Request, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	id := "chatcmpl-" + digest(fmt.Sprint(time.Now().UnixNano()))
	send := func(data string) bool {
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	chunk := func(delta map[string]any, finish any) string {
		b, _ := json.Marshal(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		return string(b)
	}
	if !send(chunk(map[string]any{"role": "assistant", "content": ""}, nil)) {
		return
	}
	for _, c := range reply.Chunks {
		if !s.wait(ctx, c.Wait) {
			return
		}
		if c.Raw != "" {
			if !send(c.Raw) {
				return
			}
			continue
		}
		delta := map[string]any{}
		if c.Content != "" {
			delta["content"] = c.Content
		}
		if c.Reasoning != "" {
			field := c.ReasoningField
			if field == "" {
				field = "reasoning_content"
			}
			delta[field] = c.Reasoning
		}
		if len(c.ToolCalls) > 0 {
			var calls []map[string]any
			for _, tc := range c.ToolCalls {
				call := map[string]any{"index": tc.Index, "function": map[string]any{"arguments": tc.Arguments}}
				if tc.ID != "" {
					call["id"], call["type"] = tc.ID, "function"
				}
				if tc.Name != "" {
					call["function"].(map[string]any)["name"] = tc.Name
				}
				calls = append(calls, call)
			}
			delta["tool_calls"] = calls
		}
		if !send(chunk(delta, nil)) {
			return
		}
	}
	if reply.Cut {
		panic(http.ErrAbortHandler)
	}
	if !send(chunk(map[string]any{}, finishReason(reply))) {
		return
	}
	if req.IncludeUsage {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": req.Model, "choices": []any{}, "usage": usage(req, reply)})
		if !send(string(b)) {
			return
		}
	}
	send("[DONE]")
}

// whole answers a request that is not streamed with one chat.completion.
func (s *Server) whole(w http.ResponseWriter, req Request, reply Reply) {
	var content, reasoning strings.Builder
	calls := map[int]map[string]any{}
	var order []int
	for _, c := range reply.Chunks {
		content.WriteString(c.Content)
		reasoning.WriteString(c.Reasoning)
		for _, tc := range c.ToolCalls {
			call, ok := calls[tc.Index]
			if !ok {
				call = map[string]any{"type": "function", "function": map[string]any{"name": "", "arguments": ""}}
				calls[tc.Index] = call
				order = append(order, tc.Index)
			}
			fn := call["function"].(map[string]any)
			if tc.ID != "" {
				call["id"] = tc.ID
			}
			fn["name"] = fn["name"].(string) + tc.Name
			fn["arguments"] = fn["arguments"].(string) + tc.Arguments
		}
	}
	msg := map[string]any{"role": "assistant", "content": content.String()}
	if reasoning.Len() > 0 {
		msg["reasoning_content"] = reasoning.String()
	}
	if len(order) > 0 {
		var list []any
		for _, i := range order {
			list = append(list, calls[i])
		}
		msg["tool_calls"] = list
	}
	if reply.Cut {
		panic(http.ErrAbortHandler)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-" + digest(req.Model), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finishReason(reply)}},
		"usage":   usage(req, reply),
	})
}

func digest(s string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return fmt.Sprintf("%016x", h.Sum64())
}
