// Package ollamatest is a fake Ollama server that speaks the real HTTP API
// (/api/show, /api/chat as an NDJSON stream, /api/embed, /api/tags,
// /api/version), so tests run the real github.com/ollama/ollama/api client
// against scripted model replies.
//
// Chat replies come, in this order, from the FIFO filled by Script, from the
// function set with Handle, or else echo the last user message. Every chat
// request is recorded for assertions. Down and Up simulate an Ollama outage
// on the same URL; gates (Reply.Gate, Chunk.Wait) hold a reply until the test
// releases it, so queueing and streaming are tested without sleeps.
package ollamatest

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/yorozu-bot/yorozu/internal/servetest"
)

// Version is what /api/version reports.
const Version = "0.17.4"

// Chunk is one streamed line of a chat reply.
type Chunk struct {
	Content   string
	Thinking  string
	ToolCalls []api.ToolCall
	// Error, when set, is sent as an {"error": ...} line: a failure in the
	// middle of the stream. Nothing is sent after it.
	Error string
	// Wait, when set, holds this chunk until the channel is closed (or the
	// request is cancelled).
	Wait <-chan struct{}
}

// Reply is one scripted answer to /api/chat.
type Reply struct {
	Chunks []Chunk
	// Metrics go on the final done line (prompt_eval_count, eval_count,
	// durations).
	Metrics api.Metrics
	// DoneReason goes on the final done line; default "stop".
	DoneReason string
	// Status, when >= 400, answers with that HTTP status and an error body
	// instead of a stream.
	Status int
	// Gate, when set, holds the whole reply until the channel is closed.
	Gate <-chan struct{}
	// Delay holds the reply for this long before the first chunk. Prefer
	// Gate in tests; Delay is for demos and end-to-end runs.
	Delay time.Duration
	// Cut drops the connection after the chunks, without a done line: a
	// stream broken mid-way.
	Cut bool
}

// Text is a reply streaming the given content chunks in order.
func Text(chunks ...string) Reply {
	r := Reply{}
	for _, c := range chunks {
		r.Chunks = append(r.Chunks, Chunk{Content: c})
	}
	return r
}

// ToolCalls is a reply whose only chunk calls the given tools.
func ToolCalls(calls ...api.ToolCall) Reply {
	return Reply{Chunks: []Chunk{{ToolCalls: calls}}}
}

// Call builds a tool call with the given arguments.
func Call(name string, args map[string]any) api.ToolCall {
	a := api.NewToolCallFunctionArguments()
	for k, v := range args {
		a.Set(k, v)
	}
	return api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: a}}
}

// Server is a fake Ollama. It is safe for concurrent use.
type Server struct {
	url *url.URL
	mux *http.ServeMux
	ln  *servetest.Listener

	mu        sync.Mutex
	models    map[string][]model.Capability
	script    []Reply
	handle    func(api.ChatRequest, time.Time) Reply
	embed     func(model, input string) []float32
	status    int
	tagsGate  <-chan struct{}
	requests  []api.ChatRequest
	inFlight  int // chat requests being answered now
	maxFlight int // the most at once
	showCalls int
	versions  int
	client    *api.Client
	transport *http.Transport
}

// New starts a fake Ollama on a loopback port; it is closed in t.Cleanup.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		models: map[string][]model.Capability{},
		embed:  servetest.HashEmbed,
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /api/version", s.serveVersion)
	s.mux.HandleFunc("GET /api/tags", s.serveTags)
	s.mux.HandleFunc("POST /api/show", s.serveShow)
	s.mux.HandleFunc("POST /api/chat", s.serveChat)
	s.mux.HandleFunc("POST /api/embed", s.serveEmbed)
	s.mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("Ollama is running")) })
	s.ln = servetest.Listen(t, s.mux)
	s.url = &url.URL{Scheme: "http", Host: s.ln.Addr()}
	t.Cleanup(s.close)
	return s
}

func (s *Server) close() {
	s.ln.Down()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.transport != nil {
		s.transport.CloseIdleConnections()
	}
}

// URL is the server's base URL, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return s.url.String() }

// Client is a real *api.Client pointed at the server.
func (s *Server) Client() *api.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		s.transport = http.DefaultTransport.(*http.Transport).Clone()
		s.client = api.NewClient(s.url, &http.Client{Transport: s.transport})
	}
	return s.client
}

// Down makes the server refuse connections: the listener is closed and open
// connections are dropped. Up restores it on the same URL.
func (s *Server) Down() { s.ln.Down() }

// Up listens again on the same address after Down.
func (s *Server) Up() { s.ln.Up() }

// AddModel registers a model with its capabilities ("completion", "tools",
// "thinking", "vision", "embedding", …). A name without a tag means
// ":latest", as in Ollama.
func (s *Server) AddModel(name string, caps ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := make([]model.Capability, len(caps))
	for i, c := range caps {
		cs[i] = model.Capability(c)
	}
	s.models[normalize(name)] = cs
}

// RemoveModel forgets a model, as `ollama rm` would.
func (s *Server) RemoveModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.models, normalize(name))
}

// Script queues replies for the next chat requests, first in first out.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Handle sets a function that answers chat requests when nothing is
// scripted. nil restores the default echo of the last user message.
func (s *Server) Handle(f func(req api.ChatRequest) Reply) {
	if f == nil {
		s.HandleTimed(nil)
		return
	}
	s.HandleTimed(func(req api.ChatRequest, _ time.Time) Reply { return f(req) })
}

// HandleTimed is Handle with the time each request arrived: when its
// handler began, before its body was read and decoded (what a benchmark
// of the client's side times to).
func (s *Server) HandleTimed(f func(req api.ChatRequest, arrived time.Time) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handle = f
}

// SetEmbed replaces the deterministic embedding function of /api/embed.
func (s *Server) SetEmbed(f func(model, input string) []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == nil {
		f = servetest.HashEmbed
	}
	s.embed = f
}

// HoldTags holds every GET /api/tags answer (the list of installed models)
// until gate is closed or the request is cancelled: a slow Ollama. nil
// answers at once again.
func (s *Server) HoldTags(gate <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tagsGate = gate
}

// Status makes every /api endpoint answer with this HTTP status and an error
// body until Status(0).
func (s *Server) Status(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = code
}

// Requests returns the chat requests received so far, in order.
func (s *Server) Requests() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]api.ChatRequest(nil), s.requests...)
}

// ChatCalls is the number of /api/chat requests received.
func (s *Server) ChatCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// InFlight is the number of chat requests being answered now.
func (s *Server) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight
}

// MaxInFlight is the most chat requests the server answered at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxFlight
}

// ShowCalls is the number of /api/show requests received.
func (s *Server) ShowCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.showCalls
}

// VersionCalls is the number of /api/version requests received.
func (s *Server) VersionCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.versions
}

func normalize(name string) string {
	if i := strings.LastIndex(name, "/"); !strings.Contains(name[i+1:], ":") {
		return name + ":latest"
	}
	return name
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

func notFound(w http.ResponseWriter, name string) {
	writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", name))
}

// forcedStatus answers with the status set by Status, if any.
func (s *Server) forcedStatus(w http.ResponseWriter) bool {
	s.mu.Lock()
	code := s.status
	s.mu.Unlock()
	if code < 400 {
		return false
	}
	writeError(w, code, strings.ToLower(http.StatusText(code)))
	return true
}

func (s *Server) lookup(name string) ([]model.Capability, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	caps, ok := s.models[normalize(name)]
	return caps, ok
}

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.versions++
	s.mu.Unlock()
	if s.forcedStatus(w) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"version": Version})
}

func (s *Server) serveTags(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	gate := s.tagsGate
	s.mu.Unlock()
	if gate != nil && !servetest.Wait(r.Context(), gate) {
		return
	}
	if s.forcedStatus(w) {
		return
	}
	s.mu.Lock()
	var list api.ListResponse
	for name := range s.models {
		list.Models = append(list.Models, api.ListModelResponse{Name: name, Model: name, Digest: digest(name)})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) serveShow(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.showCalls++
	s.mu.Unlock()
	if s.forcedStatus(w) {
		return
	}
	var req api.ShowRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		//lint:ignore SA1019 Ollama still accepts the deprecated field, so the fake does too
		name = req.Name
	}
	caps, ok := s.lookup(name)
	if !ok {
		notFound(w, name)
		return
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		Details:      api.ModelDetails{Format: "gguf", Family: "fake"},
		ModelInfo:    map[string]any{"general.architecture": "fake"},
		Capabilities: caps,
	})
}

func (s *Server) serveEmbed(w http.ResponseWriter, r *http.Request) {
	if s.forcedStatus(w) {
		return
	}
	var req api.EmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if _, ok := s.lookup(req.Model); !ok {
		notFound(w, req.Model)
		return
	}
	var inputs []string
	switch in := req.Input.(type) {
	case string:
		inputs = []string{in}
	case []any:
		for _, v := range in {
			str, ok := v.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, "invalid input type")
				return
			}
			inputs = append(inputs, str)
		}
	default:
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}
	s.mu.Lock()
	embed := s.embed
	s.mu.Unlock()
	resp := api.EmbedResponse{Model: req.Model}
	for _, in := range inputs {
		resp.Embeddings = append(resp.Embeddings, embed(req.Model, in))
		resp.PromptEvalCount += len(strings.Fields(in))
	}
	writeJSON(w, http.StatusOK, resp)
}

// next picks the reply for a chat request: script, handler, then echo.
func (s *Server) next(req api.ChatRequest, arrived time.Time) Reply {
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
func Echo(req api.ChatRequest) Reply {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return Text(req.Messages[i].Content)
		}
	}
	return Text("")
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.inFlight++
	s.maxFlight = max(s.maxFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if s.forcedStatus(w) {
		return
	}
	if _, ok := s.lookup(req.Model); !ok {
		notFound(w, req.Model)
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
			return
		}
	}
	if !servetest.Wait(ctx, reply.Gate) {
		return
	}
	if reply.Status >= 400 {
		writeError(w, reply.Status, strings.ToLower(http.StatusText(reply.Status)))
		return
	}
	if req.Stream != nil && !*req.Stream {
		s.whole(ctx, w, req, reply)
		return
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	send := func(v any) bool {
		if err := enc.Encode(v); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	now := time.Now().UTC()
	for _, c := range reply.Chunks {
		if !servetest.Wait(ctx, c.Wait) {
			return
		}
		if c.Error != "" {
			send(map[string]string{"error": c.Error})
			return
		}
		msg := api.Message{Role: "assistant", Content: c.Content, Thinking: c.Thinking, ToolCalls: c.ToolCalls}
		if !send(api.ChatResponse{Model: req.Model, CreatedAt: now, Message: msg}) {
			return
		}
	}
	if reply.Cut {
		panic(http.ErrAbortHandler)
	}
	send(done(req, reply, api.Message{Role: "assistant"}, now))
}

// whole answers a stream:false request with one aggregated response.
func (s *Server) whole(ctx context.Context, w http.ResponseWriter, req api.ChatRequest, reply Reply) {
	msg := api.Message{Role: "assistant"}
	for _, c := range reply.Chunks {
		if !servetest.Wait(ctx, c.Wait) {
			return
		}
		if c.Error != "" {
			writeError(w, http.StatusInternalServerError, c.Error)
			return
		}
		msg.Content += c.Content
		msg.Thinking += c.Thinking
		msg.ToolCalls = append(msg.ToolCalls, c.ToolCalls...)
	}
	if reply.Cut {
		panic(http.ErrAbortHandler)
	}
	writeJSON(w, http.StatusOK, done(req, reply, msg, time.Now().UTC()))
}

func done(req api.ChatRequest, reply Reply, msg api.Message, at time.Time) api.ChatResponse {
	reason := reply.DoneReason
	if reason == "" {
		reason = "stop"
	}
	return api.ChatResponse{Model: req.Model, CreatedAt: at, Message: msg, Done: true, DoneReason: reason, Metrics: reply.Metrics}
}

func digest(name string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return fmt.Sprintf("%016x", h.Sum64())
}
