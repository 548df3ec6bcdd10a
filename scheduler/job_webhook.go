package scheduler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// webhook executes a Discord webhook: the scheduled posts' and the
// disaster posts'. Its URL holds the webhook's token, so no error it
// returns quotes the URL.
type webhook struct {
	url    string
	client *http.Client // nil: http.DefaultClient
}

// maxWebhookAnswer bounds the answer read back (a message is a few kB).
const maxWebhookAnswer = 64 << 10

// do sends body (nil: none) as contentType with method to the webhook's URL
// with sub appended to its path ("/messages/<id>") and query added to its
// own ("wait=true"). It returns the answer's body and status (0 when none
// came); a status other than 2xx is an error that quotes the answer's start.
func (w webhook) do(ctx context.Context, method, sub, query, contentType string, body []byte) ([]byte, int, error) {
	u, q, _ := strings.Cut(w.url, "?")
	u = strings.TrimSuffix(u, "/") + sub
	if q != "" && query != "" {
		q += "&"
	}
	if q += query; q != "" {
		u += "?" + q
	}
	var rd io.Reader = http.NoBody
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, 0, fmt.Errorf("webhook %s: invalid webhook URL", method) // never quote the token
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	hc := w.client
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		var uerr interface{ Unwrap() error }
		if errors.As(err, &uerr) {
			err = uerr.Unwrap() // drop the *url.Error that quotes the token
		}
		return nil, 0, fmt.Errorf("webhook %s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxWebhookAnswer))
	if resp.StatusCode/100 != 2 {
		return nil, resp.StatusCode, fmt.Errorf("webhook %s: %s: %s", method, resp.Status, strings.TrimSpace(string(raw[:min(len(raw), 512)])))
	}
	return raw, resp.StatusCode, nil
}
