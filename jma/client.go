package jma

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ErrUnavailable is returned when JMA cannot be reached or answers with an
// error: the caller retries later.
var ErrUnavailable = errors.New("jma unavailable")

// areaPath is JMA's list of areas under the API root.
const areaPath = "common/const/area.json"

// Defaults of ClientOptions.
const (
	DefaultBaseURL = "https://www.jma.go.jp/bosai/"
	DefaultTimeout = 10 * time.Second
	maxBody        = 8 << 20 // the earthquake list is about 300 kB
	areaTTL        = 24 * time.Hour
)

// ClientOptions configure a Client.
type ClientOptions struct {
	BaseURL    string        // JMA_BASE_URL; default DefaultBaseURL
	HTTPClient *http.Client  // default http.DefaultClient
	Timeout    time.Duration // bounds one request; default DefaultTimeout
	UserAgent  string        // sent when set
}

// Client reads JMA's lists, each with If-None-Match / If-Modified-Since
// when JMA gave an ETag or Last-Modified for it. It is safe for concurrent
// use.
type Client struct {
	o ClientOptions

	mu         sync.Mutex
	validators map[string]validator
	areas      map[string]string // class10 and class20 codes -> names
	areasAt    time.Time
}

type validator struct{ etag, modified string }

// NewClient returns a Client; zero options take their defaults.
func NewClient(o ClientOptions) *Client {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	if !strings.HasSuffix(o.BaseURL, "/") {
		o.BaseURL += "/"
	}
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return &Client{o: o, validators: map[string]validator{}}
}

// Changed fetches path (under the API root) unless it is unchanged since the
// last time: then it returns nil, false. A fresh answer is body, true.
func (c *Client) Changed(ctx context.Context, path string) ([]byte, bool, error) {
	c.mu.Lock()
	v := c.validators[path]
	c.mu.Unlock()
	body, nv, err := c.get(ctx, path, v)
	if err != nil || body == nil {
		return nil, false, err
	}
	c.mu.Lock()
	c.validators[path] = nv
	c.mu.Unlock()
	return body, true, nil
}

// Forget drops what Changed remembers of path, so its next fetch reads it
// whole (after an answer that could not be used).
func (c *Client) Forget(path string) {
	c.mu.Lock()
	delete(c.validators, path)
	c.mu.Unlock()
}

// Get fetches path whole.
func (c *Client) Get(ctx context.Context, path string) ([]byte, error) {
	body, _, err := c.get(ctx, path, validator{})
	return body, err
}

// AreaNames returns JMA's names of class10 areas (130010 東京地方) and
// class20 areas, which are the cities of the earthquake lists (1310100
// 千代田区), read once a day. It is best effort: on failure it returns what
// it had, maybe nothing.
func (c *Client) AreaNames(ctx context.Context) map[string]string {
	c.mu.Lock()
	names, at := c.areas, c.areasAt
	c.mu.Unlock()
	if names != nil && time.Since(at) < areaTTL {
		return names
	}
	body, err := c.Get(ctx, areaPath)
	if err != nil {
		return names
	}
	var raw map[string]map[string]struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(body, &raw) != nil {
		return names
	}
	fresh := map[string]string{}
	for _, class := range []string{"class10s", "class15s", "class20s"} {
		for code, a := range raw[class] {
			fresh[code] = a.Name
		}
	}
	c.mu.Lock()
	c.areas, c.areasAt = fresh, time.Now()
	c.mu.Unlock()
	return fresh
}

func (c *Client) get(ctx context.Context, path string, v validator) ([]byte, validator, error) {
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.o.BaseURL+path, nil)
	if err != nil {
		return nil, v, fmt.Errorf("GET %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	if c.o.UserAgent != "" {
		req.Header.Set("User-Agent", c.o.UserAgent)
	}
	if v.etag != "" {
		req.Header.Set("If-None-Match", v.etag)
	}
	if v.modified != "" {
		req.Header.Set("If-Modified-Since", v.modified)
	}
	resp, err := c.o.HTTPClient.Do(req)
	if err != nil {
		return nil, v, fmt.Errorf("%w: GET %s: %w", ErrUnavailable, path, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotModified:
		return nil, v, nil
	case http.StatusOK:
	default:
		return nil, v, fmt.Errorf("%w: GET %s: %s", ErrUnavailable, path, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, v, fmt.Errorf("%w: read %s: %w", ErrUnavailable, path, err)
	}
	return body, validator{etag: resp.Header.Get("ETag"), modified: resp.Header.Get("Last-Modified")}, nil
}
