package openaicompat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/yorozu-bot/yorozu/llm"
)

// DefaultMaxRetryWait is the longest Retry-After a 429 is waited out for
// (once) when Config.MaxRetryWait is 0; a longer one is a *llm.BusyError.
const DefaultMaxRetryWait = 10 * time.Second

// modelsTTL is how long the list of the server's models is trusted by Show.
const modelsTTL = 30 * time.Second

// maxErrorBody is how much of an error answer is read for its message.
const maxErrorBody = 64 << 10

// Config is what New needs.
type Config struct {
	// BaseURL is the server's API root, usually ending in /v1
	// (OPENAI_BASE_URL, e.g. http://127.0.0.1:8080/v1). Required.
	BaseURL string
	// APIKey is sent as a bearer token (OPENAI_API_KEY); local servers
	// mostly need none. Secret.
	APIKey string
	// KeyVar is the environment variable holding APIKey, named when the
	// server refuses it. Default "OPENAI_API_KEY".
	KeyVar string
	// Capabilities are the models' capabilities as the operator gave them
	// (MODEL_CAPABILITIES), by model name. A model not in it is probed once.
	Capabilities map[string]llm.Capabilities
	// HTTP is the client requests go through. Default: bounded connects,
	// kept-alive connections, no overall timeout (every call carries its
	// own deadline, and a streamed answer takes as long as it takes).
	HTTP *http.Client
	// MaxRetryWait is the longest Retry-After of a 429 that is waited out,
	// once, within the caller's deadline. Default DefaultMaxRetryWait.
	MaxRetryWait time.Duration
	// Now is the clock (Retry-After dates, timings). Default time.Now.
	Now func() time.Time
}

// Client talks to one OpenAI-compatible server in Ollama's API types. It
// is safe for concurrent use.
type Client struct {
	oa         openai.Client
	server     string // the base URL with its password masked, for messages
	keyVar     string
	configured map[string]llm.Capabilities
	maxWait    time.Duration
	now        func() time.Time
	ids        atomic.Uint64 // for tool calls the server sent without an id

	mu     sync.Mutex
	probed map[string]llm.Capabilities
	models []string // last GET /models, for Show
	listed time.Time
}

// New returns a Client for the server at cfg.BaseURL. It makes no request.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai-compatible server %q: want an http(s) URL such as http://127.0.0.1:8080/v1", cfg.BaseURL)
	}
	c := &Client{
		server:     u.Redacted(),
		keyVar:     cfg.KeyVar,
		configured: cfg.Capabilities,
		maxWait:    cfg.MaxRetryWait,
		now:        cfg.Now,
		probed:     map[string]llm.Capabilities{},
	}
	if c.keyVar == "" {
		c.keyVar = "OPENAI_API_KEY"
	}
	if c.maxWait <= 0 {
		c.maxWait = DefaultMaxRetryWait
	}
	if c.now == nil {
		c.now = time.Now
	}
	hc := cfg.HTTP
	if hc == nil {
		hc = llm.HTTPClient()
	}
	opts := []option.RequestOption{
		option.WithBaseURL(u.String()),
		option.WithHTTPClient(hc),
		// Retries are ours: a 429 is waited out once (Retry-After), and a
		// failing server is the pool's to route around, not to hammer.
		option.WithMaxRetries(0),
		option.WithMiddleware(c.inspect),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	} else {
		// openai-go would read OPENAI_API_KEY from the process itself;
		// configuration is read once, in package config.
		opts = append(opts, option.WithHeaderDel("Authorization"))
	}
	c.oa = openai.NewClient(opts...)
	return c, nil
}

// Server is the server's base URL with any password masked.
func (c *Client) Server() string { return c.server }

// statusError is an answer of 400 or more, before it is given a meaning
// by the operation that got it.
type statusError struct {
	status     int
	message    string // the server's message, from whatever JSON shape it used
	retryAfter time.Duration
	hasRetry   bool
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.status, http.StatusText(e.status), e.message)
}

// streamKey marks a request that asked for an SSE stream.
type streamKey struct{}

// inspect sees every answer before openai-go does: it turns error answers
// into statusError (openai-go only reads OpenAI's own error shape), and
// refuses an HTML page or, for a stream, a JSON body in place of events.
func (c *Client) inspect(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil {
		return nil, err
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode >= http.StatusBadRequest {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		_ = resp.Body.Close()
		if media == "text/html" {
			return nil, &llm.BadAnswerError{Server: c.server, What: fmt.Sprintf("an HTML page (%s) to %s %s", resp.Status, req.Method, req.URL.Path)}
		}
		e := &statusError{status: resp.StatusCode, message: errorMessage(body)}
		e.retryAfter, e.hasRetry = retryAfter(resp.Header, c.now())
		return nil, e
	}
	stream, _ := req.Context().Value(streamKey{}).(bool)
	switch {
	case media == "text/html":
		_ = resp.Body.Close()
		return nil, &llm.BadAnswerError{Server: c.server, What: fmt.Sprintf("an HTML page (%s) to %s %s", resp.Status, req.Method, req.URL.Path)}
	case stream && media == "application/json":
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		_ = resp.Body.Close()
		return nil, &llm.BadAnswerError{Server: c.server, What: fmt.Sprintf("JSON instead of an event stream to %s %s: %s", req.Method, req.URL.Path, body)}
	}
	return resp, nil
}

// retryAfter reads Retry-After-Ms, then Retry-After (seconds or an HTTP
// date).
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// interpret gives an error of op ("chat", "show", "embed", "list") about
// model its meaning in package llm's terms. images says the request
// carried images.
func (c *Client) interpret(ctx context.Context, op, model string, images bool, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s %s: %w", op, model, ctxErr)
	}
	var se *statusError
	if !errors.As(err, &se) {
		var bad *llm.BadAnswerError
		if errors.As(err, &bad) {
			return err
		}
		// Refused or reset connections, DNS, a cut stream, an error event.
		return fmt.Errorf("%s %s on %s: %w: %w", op, model, c.server, llm.ErrUnavailable, err)
	}
	msg := strings.ToLower(se.message)
	switch {
	case se.status == http.StatusUnauthorized || se.status == http.StatusForbidden:
		return &llm.KeyRefusedError{Server: c.server, KeyVar: c.keyVar, Status: se.status, Detail: se.message}
	case se.status == http.StatusTooManyRequests:
		return &llm.BusyError{Server: c.server, RetryAfter: se.retryAfter, Detail: se.message}
	case op != "list" && modelMissing(se.status, msg):
		return &llm.ModelNotFoundError{Op: op, Model: model, Server: c.server}
	case se.status == http.StatusNotFound:
		// Not about the model: the path is wrong (a base URL without /v1).
		return &llm.BadAnswerError{Server: c.server, What: fmt.Sprintf("404 to its %s endpoint (%s)", op, se.message)}
	case images && se.status < 500 && mentionsImages(msg):
		return &llm.ImagesRefusedError{Model: model, Detail: se.message}
	case se.status >= 500:
		return fmt.Errorf("%s %s on %s: %w: %w", op, model, c.server, llm.ErrUnavailable, se)
	}
	return fmt.Errorf("%s %s on %s: %w", op, model, c.server, api.StatusError{StatusCode: se.status, Status: http.StatusText(se.status), ErrorMessage: se.message})
}

// modelMissing reports whether an error answer says the model does not
// exist: OpenAI's 404 model_not_found, vLLM's "does not exist", LM Studio's
// and llama-server's "not found"/"not loaded", some with a 400.
func modelMissing(status int, msg string) bool {
	if status != http.StatusNotFound && status != http.StatusBadRequest {
		return false
	}
	if !strings.Contains(msg, "model") {
		return false
	}
	for _, s := range []string{"not found", "does not exist", "not exist", "no such model", "not loaded", "unknown model", "invalid model"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func mentionsImages(msg string) bool {
	for _, s := range []string{"image", "vision", "multimodal", "mmproj"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// withRetry runs call, and once more after a 429 whose Retry-After is at
// most the longest wait and ends before ctx does.
func (c *Client) withRetry(ctx context.Context, call func() error) error {
	err := call()
	var se *statusError
	if !errors.As(err, &se) || se.status != http.StatusTooManyRequests || !se.hasRetry || se.retryAfter > c.maxWait {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && c.now().Add(se.retryAfter).After(dl) {
		return err
	}
	t := time.NewTimer(se.retryAfter)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return err
	case <-t.C:
	}
	return call()
}

// List returns the server's models (GET /models) as Ollama's list does.
func (c *Client) List(ctx context.Context) (*api.ListResponse, error) {
	var names []string
	err := c.withRetry(ctx, func() error {
		page, err := c.oa.Models.List(ctx)
		if err != nil {
			return err
		}
		if !page.JSON.Data.Valid() {
			return &llm.BadAnswerError{Server: c.server, What: "JSON without a \"data\" list to GET /models: " + shorten(page.RawJSON(), 200)}
		}
		names = names[:0]
		for _, m := range page.Data {
			names = append(names, m.ID)
		}
		return nil
	})
	if err != nil {
		return nil, c.interpret(ctx, "list", "models", false, err)
	}
	c.mu.Lock()
	c.models, c.listed = names, c.now()
	c.mu.Unlock()
	resp := &api.ListResponse{Models: make([]api.ListModelResponse, len(names))}
	for i, n := range names {
		resp.Models[i] = api.ListModelResponse{Name: n, Model: n}
	}
	return resp, nil
}

// Version says what kind of server answers and how many models it lists;
// it fails as List does. It stands where Ollama's /api/version does (the
// health checks ask it whether the server answers).
func (c *Client) Version(ctx context.Context) (string, error) {
	resp, err := c.List(ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("OpenAI-compatible, %d models", len(resp.Models)), nil
}

// shorten cuts s to n bytes for a message.
func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
