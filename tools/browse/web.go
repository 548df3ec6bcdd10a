package browse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/fetch"
	"github.com/yorozu-bot/yorozu/tools/page"
)

// Fetcher sends HTTP requests. The lead passes the guarded client of
// fetch.New, so its errors unwrap to *fetch.BlockedError and fetch.ErrTooLarge.
type Fetcher interface {
	Do(req *http.Request) (*http.Response, error)
}

// Deps is what the web tools need.
type Deps struct {
	// Fetcher fetches every URL the model chooses: fetch.New's client.
	Fetcher Fetcher
	// Searcher answers web_search and search_and_fetch (NewSearcher).
	Searcher Searcher
	// Signer signs continuation tokens (page.NewSigner with the stored secret).
	Signer *page.Signer
	// MaxResultChars is the most characters of one tool result the LLM
	// pipeline passes to the model (llm.MaxResultChars); 0 means no limit.
	// Pages are sized so that a page with its headers and footer fits:
	// text cut by the pipeline would be skipped by the continuation token.
	MaxResultChars int
	// Keeper, when set, keeps every fetched document with its conversation
	// and backs list_fetched_files and read_fetched_file.
	Keeper Keeper
	// Location is the zone times are shown in (TIMEZONE); UTC when nil.
	Location *time.Location
}

// resultReserve is the room left in MaxResultChars for a result's headers
// and its page-info footer (whose token can carry a candidate list).
const resultReserve = 1500

// pageChars is how many characters of text one call may return: what the
// model asked for, within what the pipeline will pass on.
func (b *Browser) pageChars(requested int) int {
	if limit := b.deps.MaxResultChars - resultReserve; b.deps.MaxResultChars > 0 && requested > limit {
		return max(limit, 200)
	}
	return requested
}

// Browser implements the web tools as plain methods; Tools exposes them to
// the model.
type Browser struct {
	deps Deps
}

// NewBrowser returns a Browser using deps, all of which are required.
func NewBrowser(deps Deps) (*Browser, error) {
	if deps.Fetcher == nil || deps.Searcher == nil || deps.Signer == nil {
		return nil, errors.New("new web browser: Fetcher, Searcher and Signer are required")
	}
	return &Browser{deps: deps}, nil
}

// Register adds the web tools to reg.
func Register(reg interface{ Register(tools.Tool) error }, deps Deps) error {
	ts, err := Tools(deps)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := reg.Register(t); err != nil {
			return fmt.Errorf("register %s: %w", t.Meta().Name, err)
		}
	}
	return nil
}

// Tools returns web_search, scrape_url, pdf_to_text and search_and_fetch.
func Tools(deps Deps) ([]tools.Tool, error) {
	b, err := NewBrowser(deps)
	if err != nil {
		return nil, err
	}
	return b.Tools()
}

// document is a fetched response body.
type document struct {
	URL         *url.URL // after redirects
	ContentType string
	Body        []byte
}

// get fetches rawURL through the guarded client. Non-2xx statuses are errors.
func (b *Browser) get(ctx context.Context, u *url.URL) (*document, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", u.Redacted(), err)
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,*/*;q=0.8")
	req.Header.Set("Accept-Language", "ja,en;q=0.8")
	resp, err := b.deps.Fetcher.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &statusError{code: resp.StatusCode}
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", u.Redacted(), err)
	}
	final := u
	if resp.Request != nil && resp.Request.URL != nil {
		final = resp.Request.URL
	}
	return &document{URL: final, ContentType: resp.Header.Get("Content-Type"), Body: body}, nil
}

type statusError struct{ code int }

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.code, http.StatusText(e.code))
}

// parseHTTPURL parses a URL the model gave; ok is false for anything that is
// not an absolute http(s) URL with a host.
func parseHTTPURL(raw string) (*url.URL, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	return u, true
}

// fetchFailure renders a fetch error as the tool result the model sees.
func fetchFailure(u *url.URL, err error) string {
	var be *fetch.BlockedError
	if errors.As(err, &be) {
		return "Blocked URL: " + u.Redacted() + " (" + be.Reason + ")"
	}
	return "Failed to fetch " + u.Redacted() + ": " + shortReason(err)
}

// shortReason says in a few words why a fetch failed, without the nested
// Go error chain the model has no use for.
func shortReason(err error) string {
	var se *statusError
	var ne net.Error
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &se):
		return se.Error()
	case errors.Is(err, fetch.ErrTooLarge):
		return "response exceeds the size limit"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	case errors.As(err, &dnsErr):
		return "host not found"
	case strings.Contains(err.Error(), "stopped after"):
		return "too many redirects"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}
