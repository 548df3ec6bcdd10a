package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

func newClient(t *testing.T, opts Options) *http.Client {
	t.Helper()
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func get(ctx context.Context, c *http.Client, u string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func hello(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", r.UserAgent())
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAllowlistAdmitsTestServer(t *testing.T) {
	srv := hello(t)
	u, _ := url.Parse(srv.URL)
	for _, entry := range []string{"127.0.0.1", u.Host, "127.0.0.0/8"} {
		t.Run(entry, func(t *testing.T) {
			c := newClient(t, Options{Allowlist: []string{entry}, UserAgent: UserAgent("1.2.3")})
			body, err := get(t.Context(), c, srv.URL)
			if err != nil {
				t.Fatalf("get: %v", err)
			}
			if want := "hello yorozu/1.2.3 (+https://github.com/yorozu-bot/yorozu)"; body != want {
				t.Errorf("body = %q, want %q", body, want)
			}
		})
	}
	t.Run("same URL without allowlist", func(t *testing.T) {
		_, err := get(t.Context(), newClient(t, Options{}), srv.URL)
		assertBlocked(t, err)
	})
	t.Run("other port of an allowed host:port", func(t *testing.T) {
		_, err := get(t.Context(), newClient(t, Options{Allowlist: []string{"127.0.0.1:1"}}), srv.URL)
		assertBlocked(t, err)
	})
}

func assertBlocked(t *testing.T, err error) {
	t.Helper()
	var be *BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BlockedError", err)
	}
}

// TestBlockedURLs covers every refused form; none of them is ever dialled,
// except localhost, which only the connect-time check can catch.
func TestBlockedURLs(t *testing.T) {
	srv := hello(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	c := newClient(t, Options{Timeout: 2 * time.Second})
	for _, u := range []string{
		"file:///etc/passwd",
		"ftp://example.com/x",
		"gopher://example.com/",
		"http://user:pw@example.com/",
		"http://127.0.0.1/",
		"http://127.0.0.1:" + port + "/",
		"http://localhost:" + port + "/", // resolved, then refused at connect time
		"http://0.0.0.0/",
		"http://10.1.2.3/",
		"http://172.16.0.1/",
		"http://192.168.1.1/",
		"http://169.254.169.254/latest/meta-data/",
		"http://169.254.1.1/",
		"http://100.64.0.1/",
		"http://224.0.0.1/",
		"http://255.255.255.255/",
		"http://[::]/",
		"http://[::1]/",
		"http://[fe80::1%25eth0]/",
		"http://[fc00::1]/",
		"http://[fd00:ec2::254]/",
		"http://[ff02::1]/",
		"http://[::ffff:127.0.0.1]/",
		"http://[::ffff:7f00:1]/",
		"http://[::ffff:169.254.169.254]/",
		"http://[64:ff9b::7f00:1]/",
		"http://[64:ff9b::a9fe:a9fe]/",
		"http://2130706433/",
		"http://0177.0.0.1/",
		"http://0x7f.1/",
		"http://0x7f000001/",
		"http://127.1/",
		"http://017700000001/",
		"http://0x7f.0x0.0x0.0x1/",
		"http://3232235777/", // 192.168.1.1
	} {
		t.Run(u, func(t *testing.T) {
			_, err := get(t.Context(), c, u)
			assertBlocked(t, err)
		})
	}
}

// TestConnectTimeCheck drives the dial-time rule directly: it is what sees
// the address a name resolved to, so it must refuse every internal form.
func TestConnectTimeCheck(t *testing.T) {
	g, err := newGuard([]string{"10.9.0.0/16", "::ffff:192.0.2.7"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1", false}, {"10.0.0.1", false}, {"100.100.0.1", false},
		{"169.254.169.254", false}, {"fd00:ec2::254", false}, {"::ffff:10.0.0.1", false},
		{"::ffff:8.8.8.8", false}, {"64:ff9b::808:808", false}, {"::1", false},
		{"198.18.0.1", false}, {"240.0.0.1", false},
		{"8.8.8.8", true}, {"2606:4700:4700::1111", true},
		{"10.9.3.4", true}, {"192.0.2.7", true},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			err := g.checkAddr(netip.MustParseAddr(tc.addr))
			if (err == nil) != tc.ok {
				t.Errorf("checkAddr(%s) = %v, want ok=%v", tc.addr, err, tc.ok)
			}
		})
	}
}

func TestParseInetAton(t *testing.T) {
	for in, want := range map[string]string{
		"2130706433": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "0x7f.1": "127.0.0.1",
		"127.1": "127.0.0.1", "10.1.257": "10.1.1.1", "0x7f000001": "127.0.0.1",
	} {
		a, ok := parseInetAton(in)
		if !ok || a.String() != want {
			t.Errorf("parseInetAton(%q) = %v, %v; want %s", in, a, ok, want)
		}
	}
	for _, in := range []string{"256.1.1.1", "1.2.3.4.5", "09.1.1.1", "4294967296", "x.1"} {
		if a, ok := parseInetAton(in); ok {
			t.Errorf("parseInetAton(%q) = %v, want failure", in, a)
		}
	}
}

// redirector serves /r/N redirecting to /r/N-1 and /r/0 with text.
func redirector(t *testing.T, final func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/r/%d", &n)
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
			return
		}
		final(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRedirects(t *testing.T) {
	srv := redirector(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "landed") })
	c := newClient(t, Options{Allowlist: []string{"127.0.0.1"}})
	t.Run("six allowed", func(t *testing.T) {
		body, err := get(t.Context(), c, srv.URL+"/r/6")
		if err != nil || body != "landed" {
			t.Fatalf("get = %q, %v", body, err)
		}
	})
	t.Run("seven too many", func(t *testing.T) {
		_, err := get(t.Context(), c, srv.URL+"/r/7")
		if err == nil || !strings.Contains(err.Error(), "stopped after 6 redirects") {
			t.Fatalf("err = %v, want redirect limit", err)
		}
	})
	t.Run("redirect to blocked address", func(t *testing.T) {
		for _, target := range []string{"http://169.254.169.254/latest/", "http://0x7f.1/", "file:///etc/passwd"} {
			bounce := httptest.NewServer(http.RedirectHandler(target, http.StatusFound))
			defer bounce.Close()
			_, err := get(t.Context(), c, bounce.URL)
			assertBlocked(t, err)
		}
	})
	t.Run("redirect to a name resolving to loopback", func(t *testing.T) {
		// Only the bouncing server is allowed; the target is the allowed
		// test server under a name, caught when its address is dialled.
		u, _ := url.Parse(srv.URL)
		bounce := httptest.NewServer(http.RedirectHandler("http://localhost:"+u.Port()+"/r/0", http.StatusFound))
		defer bounce.Close()
		bu, _ := url.Parse(bounce.URL)
		only := newClient(t, Options{Allowlist: []string{bu.Host}})
		_, err := get(t.Context(), only, bounce.URL)
		assertBlocked(t, err)
	})
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c := newClient(t, Options{Allowlist: []string{"127.0.0.1"}, Timeout: 100 * time.Millisecond})
	_, err := get(t.Context(), c, srv.URL)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("err = %v, want a timeout", err)
	}
}

func TestSizeCap(t *testing.T) {
	c := newClient(t, Options{Allowlist: []string{"127.0.0.1"}, MaxBytes: 1 << 20})
	t.Run("endless body", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			chunk := []byte(strings.Repeat("x", 32<<10))
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}))
		defer srv.Close()
		body, err := get(t.Context(), c, srv.URL)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
		if len(body) > 1<<20+1 {
			t.Errorf("read %d bytes past the cap", len(body))
		}
	})
	t.Run("content-length over cap", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(2<<20))
			w.Write([]byte("short"))
		}))
		defer srv.Close()
		_, err := get(t.Context(), c, srv.URL)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("exactly the cap", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(strings.Repeat("y", 1<<20)))
		}))
		defer srv.Close()
		body, err := get(t.Context(), c, srv.URL)
		if err != nil || len(body) != 1<<20 {
			t.Fatalf("got %d bytes, %v", len(body), err)
		}
	})
}

func TestBadAllowlist(t *testing.T) {
	if _, err := New(Options{Allowlist: []string{"10.0.0.0/99"}}); err == nil {
		t.Fatal("New accepted a bad CIDR")
	}
}
