package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// Defaults used when an Options field is zero.
const (
	DefaultMaxBytes     = 10 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 6
	DefaultUserAgent    = "yorozu/dev (+https://github.com/yorozu-bot/yorozu)"
)

// UserAgent returns the User-Agent yorozu sends for the given version.
func UserAgent(version string) string {
	return "yorozu/" + version + " (+https://github.com/yorozu-bot/yorozu)"
}

// Options configures New.
type Options struct {
	// Allowlist names destinations exempt from the address rules: a host
	// ("searx.lan", "127.0.0.1"), a host and port ("127.0.0.1:8080") or a CIDR
	// prefix ("10.0.0.0/8"). It comes from FETCH_ALLOWLIST.
	Allowlist []string
	// MaxBytes caps a response body. Default DefaultMaxBytes (10 MB).
	MaxBytes int64
	// Timeout bounds a whole request, redirects and body included. Default
	// DefaultTimeout.
	Timeout time.Duration
	// UserAgent is sent on every request. Default DefaultUserAgent.
	UserAgent string
}

// BlockedError reports a URL the client refuses to fetch. Tools render it to
// the model as "Blocked URL: …".
type BlockedError struct {
	URL    string
	Reason string
}

func (e *BlockedError) Error() string {
	return "blocked url " + e.URL + ": " + e.Reason
}

// ErrTooLarge is returned (wrapped) when a body exceeds Options.MaxBytes.
var ErrTooLarge = errors.New("response body exceeds the size limit")

// metadata addresses of cloud providers, refused even if a future ssrf
// release stopped covering them.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("fd00:ec2::254"),
}

var extraDenied = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"), // CGNAT
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("fc00::/7"),
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// guard holds the address rules shared by the pre-flight URL check and the
// connect-time check.
type guard struct {
	hosts    map[string]bool // "host" or "host:port", lower case
	prefixes []netip.Prefix
	ssrf     *ssrf.Guardian
}

func newGuard(allowlist []string) (*guard, error) {
	g := &guard{
		hosts: map[string]bool{},
		// Ports are not restricted: the address is what matters, and
		// public sites do serve on 8080 and friends.
		ssrf: ssrf.New(ssrf.WithAnyPort(), ssrf.WithNetworks("tcp4", "tcp6", "tcp")),
	}
	for _, raw := range allowlist {
		e := strings.ToLower(strings.TrimSpace(raw))
		if e == "" {
			continue
		}
		if strings.Contains(e, "/") {
			p, err := netip.ParsePrefix(e)
			if err != nil {
				return nil, fmt.Errorf("parse allowlist entry %q: %w", raw, err)
			}
			g.prefixes = append(g.prefixes, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil {
			g.prefixes = append(g.prefixes, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		if h, p, err := net.SplitHostPort(e); err == nil {
			if a, err := netip.ParseAddr(h); err == nil {
				h = a.Unmap().String()
			}
			g.hosts[net.JoinHostPort(h, p)] = true
			continue
		}
		g.hosts[strings.Trim(e, "[]")] = true
	}
	return g, nil
}

// hostAllowed reports whether host (and port) is named in the allowlist.
func (g *guard) hostAllowed(host, port string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if g.hosts[host] || g.hosts[net.JoinHostPort(host, port)] {
		return true
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return g.addrAllowed(a) || g.hosts[net.JoinHostPort(a.Unmap().String(), port)]
	}
	return false
}

func (g *guard) addrAllowed(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range g.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// checkAddr returns why a is not a permitted destination, or nil.
func (g *guard) checkAddr(a netip.Addr) error {
	a = a.WithZone("")
	if g.addrAllowed(a) {
		return nil
	}
	if a.Is4In6() {
		return fmt.Errorf("IPv4-mapped IPv6 address %s", a)
	}
	if nat64.Contains(a) {
		return fmt.Errorf("NAT64 address %s", a)
	}
	for _, m := range metadataAddrs {
		if a == m {
			return fmt.Errorf("cloud metadata address %s", a)
		}
	}
	if a.IsUnspecified() || a.IsLoopback() || a.IsMulticast() || a.IsPrivate() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
		return fmt.Errorf("non-public address %s", a)
	}
	for _, p := range extraDenied {
		if p.Contains(a) {
			return fmt.Errorf("non-public address %s", a)
		}
	}
	if err := g.ssrf.SafeAddr(a); err != nil {
		return fmt.Errorf("non-public address %s", a)
	}
	return nil
}

// checkURL is the pre-flight check run for the first request and every
// redirect, before anything is dialled.
func (g *guard) checkURL(u *url.URL) error {
	block := func(reason string) error { return &BlockedError{URL: u.Redacted(), Reason: reason} }
	if u.Scheme != "http" && u.Scheme != "https" {
		return block("only http and https are allowed")
	}
	if u.User != nil {
		return block("credentials in URLs are not allowed")
	}
	host := u.Hostname()
	if host == "" {
		return block("missing host")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if g.hostAllowed(host, port) {
		return nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if err := g.checkAddr(a); err != nil {
			return block(err.Error())
		}
		return nil
	}
	if looksNumeric(host) {
		if a, ok := parseInetAton(host); ok {
			return block(fmt.Sprintf("non-canonical IP address spelling %q (= %s)", host, a))
		}
		return block(fmt.Sprintf("non-canonical IP address spelling %q", host))
	}
	return nil
}

// looksNumeric reports whether a host would be taken for an IPv4 address by
// some resolver: the last label is all digits, or a 0x hex number. Such names
// cannot be real DNS names (no TLD is numeric).
func looksNumeric(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") || strings.HasPrefix(last, "0X") {
		return true
	}
	for _, c := range last {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseInetAton parses host with the rules of BSD inet_aton: one to four
// parts, each decimal, octal (leading 0) or hex (0x), the last part filling
// the remaining bytes. It exists so the refusal can say which address a
// spelling such as 0x7f.1 stands for.
func parseInetAton(host string) (netip.Addr, bool) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, p = 16, p[2:]
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*i)
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// New returns the guarded client. Its errors unwrap to *BlockedError for a
// refused destination and to ErrTooLarge for an oversized body.
func New(opts Options) (*http.Client, error) {
	g, err := newGuard(opts.Allowlist)
	if err != nil {
		return nil, err
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.UserAgent == "" {
		opts.UserAgent = DefaultUserAgent
	}
	guarded := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &BlockedError{URL: address, Reason: "unparsable address"}
			}
			if err := g.checkAddr(ap.Addr()); err != nil {
				return &BlockedError{URL: address, Reason: err.Error()}
			}
			return nil
		},
	}
	open := &net.Dialer{Timeout: 10 * time.Second}
	tr := &http.Transport{
		Proxy: nil, // a proxy would make the connect-time check see the proxy, not the target
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err == nil && g.hostAllowed(host, port) {
				return open.DialContext(ctx, network, addr)
			}
			return guarded.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          20,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: opts.Timeout,
	}
	return &http.Client{
		Transport: &transport{next: tr, guard: g, maxBytes: opts.MaxBytes, userAgent: opts.UserAgent},
		Timeout:   opts.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > DefaultMaxRedirects {
				return fmt.Errorf("stopped after %d redirects", DefaultMaxRedirects)
			}
			return g.checkURL(req.URL)
		},
	}, nil
}

// transport runs the pre-flight check on every request (redirects included)
// and caps response bodies.
type transport struct {
	next      http.RoundTripper
	guard     *guard
	maxBytes  int64
	userAgent string
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.guard.checkURL(req.URL); err != nil {
		return nil, err
	}
	if req.Header.Get("User-Agent") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("User-Agent", t.userAgent)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.maxBytes {
		resp.Body.Close()
		return nil, fmt.Errorf("content-length %d: %w", resp.ContentLength, ErrTooLarge)
	}
	resp.Body = &cappedBody{rc: resp.Body, left: t.maxBytes}
	return resp, nil
}

// cappedBody fails once more than its limit has been read, so an endless
// body ends with an error rather than silently truncated text.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, ErrTooLarge
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
