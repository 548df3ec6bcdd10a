package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
	"github.com/ollama/ollama/version"
)

// MaxLineBytes is the longest NDJSON line Client.Chat accepts, api.Client's
// own limit (8 MB).
const MaxLineBytes = 8_000_000

// firstLineBuffer is what Client.Chat's line buffer starts at: a chunk of
// a streamed answer is a few hundred bytes, a whole non-streamed answer a
// few KB.
const firstLineBuffer = 16 << 10

// Client is api.Client with a Chat that reads the NDJSON stream through a
// buffer that grows to what the lines need. api.Client allocates 8 MB for
// every call's stream, so every model call made 8 MB of garbage that the
// runtime zeroes on reuse (resident memory) and counts towards the next
// collection. Everything else — Show, Embed, List, … — is api.Client's,
// and so is Chat towards a server that wants signed requests (ollama.com,
// OLLAMA_AUTH).
type Client struct {
	*api.Client
	base   *url.URL
	http   *http.Client
	signed bool
}

// NewClient returns a client for the Ollama server at base, as
// api.NewClient does. A nil hc gets one with
// bounded connects and kept-alive connections (httpClient).
func NewClient(base *url.URL, hc *http.Client) *Client {
	if hc == nil {
		hc = HTTPClient()
	}
	return &Client{
		Client: api.NewClient(base, hc),
		base:   base,
		http:   hc,
		signed: envconfig.UseAuth() || base.Hostname() == "ollama.com",
	}
}

// HTTPClient is the HTTP client yorozu reaches a model server with. It
// has no overall timeout, since a streamed answer (or a model loading)
// takes as long as it takes and every call carries its own deadline;
// connecting and the TLS handshake are bounded, and idle connections are
// kept for the next turn.
func HTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 10 * time.Second
	t.MaxIdleConnsPerHost = 8
	return &http.Client{Transport: t}
}

// Chat posts req to /api/chat and calls fn with each response of the
// stream (one, when req.Stream is false). Errors are api.Client's: a
// status of 400 or more is an api.StatusError (api.AuthorizationError for
// 401) carrying Ollama's message, an error line mid-stream an error with
// its text. Unlike api.Client, a line longer than MaxLineBytes is an error
// rather than a silent end of the answer.
func (c *Client) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	return c.chatEncoded(ctx, req, nil, fn)
}

// chatEncoded is Chat with the JSON of req.Tools made already (nil: not).
func (c *Client) chatEncoded(ctx context.Context, req *api.ChatRequest, tools []byte, fn api.ChatResponseFunc) error {
	if c.signed {
		return c.Client.Chat(ctx, req, fn)
	}
	body, err := chatBody(req, tools)
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/x-ndjson")
	hreq.Header.Set("User-Agent", fmt.Sprintf("ollama/%s (%s %s) Go/%s", version.Version, runtime.GOARCH, runtime.GOOS, runtime.Version()))
	resp, err := c.http.Do(hreq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, firstLineBuffer), MaxLineBytes)
	for sc.Scan() {
		line := sc.Bytes()
		var status struct {
			Error     string `json:"error,omitempty"`
			SigninURL string `json:"signin_url,omitempty"`
		}
		if err := json.Unmarshal(line, &status); err != nil {
			if resp.StatusCode >= http.StatusBadRequest {
				return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: string(line)}
			}
			return errors.New(string(line))
		}
		switch {
		case resp.StatusCode == http.StatusUnauthorized:
			return api.AuthorizationError{StatusCode: resp.StatusCode, Status: resp.Status, SigninURL: status.SigninURL}
		case resp.StatusCode >= http.StatusBadRequest:
			return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: status.Error}
		case status.Error != "":
			return errors.New(status.Error)
		}
		var r api.ChatResponse
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read chat stream: %w", err)
	}
	return nil
}
