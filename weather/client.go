package weather

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/jma"
)

// ErrUnavailable is returned when JMA cannot be reached or answers with an
// error: the caller may retry later. It is jma's.
var ErrUnavailable = jma.ErrUnavailable

// Defaults of ClientOptions.
const (
	DefaultTimeout  = 10 * time.Second
	DefaultCacheTTL = 30 * time.Minute
	// DefaultFailureTTL is how long a failed fetch is remembered: questions
	// in that time get the same error without a request (or a DNS lookup).
	DefaultFailureTTL = time.Minute
)

// ClientOptions configures a Client.
type ClientOptions struct {
	// JMA reads the API, shared with the disaster poll. Nil: one made of
	// BaseURL and HTTPClient.
	JMA *jma.Client
	// BaseURL is the API root (JMA_BASE_URL) when JMA is nil; default
	// jma.DefaultBaseURL.
	BaseURL string
	// HTTPClient makes the requests when JMA is nil; default
	// http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds one fetch (forecast and overview); default DefaultTimeout.
	Timeout time.Duration
	// CacheTTL is how long a forecast is reused; default DefaultCacheTTL.
	CacheTTL time.Duration
	// FailureTTL is how long a failure is reused; default
	// DefaultFailureTTL; negative: never (a caller that retries itself,
	// such as the scheduled post).
	FailureTTL time.Duration
	// Area picks the class10 area by code; empty takes the office's first.
	Area string
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Client fetches forecasts from JMA and caches them. It is safe for
// concurrent use.
type Client struct {
	opts ClientOptions

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	f   *Forecast
	err error // a failed fetch, remembered for FailureTTL
	at  time.Time
}

// NewClient returns a Client; zero options take their defaults.
func NewClient(opts ClientOptions) *Client {
	if opts.JMA == nil {
		opts.JMA = jma.NewClient(jma.ClientOptions{BaseURL: opts.BaseURL, HTTPClient: opts.HTTPClient})
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.CacheTTL <= 0 {
		opts.CacheTTL = DefaultCacheTTL
	}
	if opts.FailureTTL == 0 {
		opts.FailureTTL = DefaultFailureTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Client{opts: opts, cache: map[string]cached{}}
}

// Forecast returns the forecast of the office (e.g. "130000"), from the
// cache when it is younger than the TTL. A failure is remembered for
// FailureTTL: with JMA down, questions in that time get its error at once.
// The overview is best effort: a forecast without it is still a forecast.
func (c *Client) Forecast(ctx context.Context, office string) (*Forecast, error) {
	return c.forecast(ctx, Place{Office: office, Area: c.opts.Area}, false)
}

// PlaceForecast returns the forecast of a place (FindPlace, OfficePlace):
// its office's document read for its area and temperature station, cached
// and with failures remembered as Forecast does.
func (c *Client) PlaceForecast(ctx context.Context, p Place) (*Forecast, error) {
	return c.forecast(ctx, p, true)
}

func (c *Client) forecast(ctx context.Context, p Place, lenient bool) (*Forecast, error) {
	key := fmt.Sprintf("%s/%s/%s/%v", p.Office, p.Area, p.Station, lenient)
	now := c.opts.Now()
	c.mu.Lock()
	e, ok := c.cache[key]
	c.mu.Unlock()
	if ok && e.err != nil && now.Sub(e.at) < c.opts.FailureTTL {
		return nil, e.err
	}
	if ok && e.err == nil && now.Sub(e.at) < c.opts.CacheTTL {
		return e.f, nil
	}

	f, err := c.fetch(ctx, p, lenient)
	if err != nil {
		if ctx.Err() == nil && c.opts.FailureTTL > 0 { // the caller's own cancellation says nothing about JMA
			c.mu.Lock()
			c.cache[key] = cached{err: err, at: now}
			c.mu.Unlock()
		}
		return nil, err
	}
	c.mu.Lock()
	c.cache[key] = cached{f: f, at: now}
	c.mu.Unlock()
	return f, nil
}

func (c *Client) fetch(ctx context.Context, p Place, lenient bool) (*Forecast, error) {
	office := p.Office
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	body, err := c.opts.JMA.Get(ctx, "forecast/data/forecast/"+office+".json")
	if err != nil {
		return nil, fmt.Errorf("forecast %s: %w", office, err)
	}
	var f *Forecast
	if lenient {
		f, err = ParsePlace(body, p)
	} else {
		f, err = Parse(body, p.Area)
	}
	if err != nil {
		return nil, fmt.Errorf("forecast %s: %w", office, err)
	}
	if ov, err := c.opts.JMA.Get(ctx, "forecast/data/overview_forecast/"+office+".json"); err == nil {
		_ = f.ParseOverview(ov) // best effort, as the fetch
	}
	return f, nil
}
