package bot

import (
	"net/http"
	"net/url"
	"strings"
)

// discordHost is where discordgo sends every REST call (its endpoints are
// package variables built on https://discord.com/).
const discordHost = "discord.com"

// rebaseClient returns a copy of c whose requests to https://discord.com/
// go to base instead (scheme, host and path prefix), so a proxy or a test
// server can stand in for Discord without touching discordgo's globals.
func rebaseClient(c *http.Client, base *url.URL) *http.Client {
	cp := *c
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	if base.Scheme == "https" && base.Host == discordHost && base.Path == "/" {
		return &cp
	}
	cp.Transport = &rebase{base: base, next: next}
	return &cp
}

type rebase struct {
	base *url.URL
	next http.RoundTripper
}

func (t *rebase) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != discordHost {
		return t.next.RoundTrip(r)
	}
	u := *r.URL
	u.Scheme, u.Host = t.base.Scheme, t.base.Host
	u.Path = t.base.Path + strings.TrimPrefix(r.URL.Path, "/")
	if r.URL.RawPath != "" {
		u.RawPath = t.base.EscapedPath() + strings.TrimPrefix(r.URL.RawPath, "/")
	}
	r2 := r.Clone(r.Context())
	r2.URL = &u
	r2.Host = ""
	return t.next.RoundTrip(r2)
}

// maxIdleConns is how many connections to Discord are kept open between
// requests: enough for the reminder workers and the turns posting at once.
// Go's default keeps two, and every other request would open (and
// TLS-handshake) a connection of its own.
const maxIdleConns = 64

// restTransport is the transport of the REST client.
func restTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = maxIdleConns, maxIdleConns
	return t
}
