package web

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestLoginSessionAndLogout(t *testing.T) {
	ts := newTestServer(t, Options{})
	anon := ts.anonymous(t)
	if code := anon.call("GET", "/api/me", nil, nil); code != http.StatusUnauthorized {
		t.Fatalf("/api/me before login = %d, want 401", code)
	}

	resp := anon.do("POST", "/api/login", loginRequest{Password: testPassword})
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("login = %d", resp.StatusCode)
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Secure || cookie.Path != "/" {
		t.Fatalf("session cookie over plain http = %+v, want HttpOnly, SameSite=Strict, not Secure", cookie)
	}

	c := ts.login(t)
	var me csrfResponse
	if code := c.call("GET", "/api/me", nil, &me); code != http.StatusOK || me.CSRFToken != c.csrf || me.CSRFToken == "" {
		t.Fatalf("/api/me = %d %+v, want the login's CSRF token %q", code, me, c.csrf)
	}

	// The session lives in Postgres: a new server on the same database knows it.
	ts2 := &testServer{base: startServer(t, Options{Pool: ts.pool}), pool: ts.pool}
	c2 := *c
	c2.base = ts2.base
	c2.http.Jar.SetCookies(mustURL(t, ts2.base), c.http.Jar.Cookies(mustURL(t, ts.base)))
	if code := c2.call("GET", "/api/me", nil, nil); code != http.StatusOK {
		t.Errorf("/api/me on a restarted server = %d, want 200", code)
	}

	if code := c.call("POST", "/api/logout", nil, nil); code != http.StatusNoContent {
		t.Fatalf("logout = %d", code)
	}
	if code := c.call("GET", "/api/me", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("/api/me after logout = %d, want 401", code)
	}
}

// TestSecureCookieBehindHTTPSProxy: X-Forwarded-Proto: https marks the
// cookie Secure when a trusted proxy sends it, and only then.
func TestSecureCookieBehindHTTPSProxy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		secure  bool
	}{
		{"from a trusted proxy", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, true},
		{"from any other peer", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, Options{TrustedProxies: tc.trusted})
			req, _ := http.NewRequest("POST", ts.base+"/api/login", strings.NewReader(`{"password":"`+testPassword+`"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Forwarded-Proto", "https")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var cookie *http.Cookie
			for _, c := range resp.Cookies() {
				if c.Name == sessionCookie {
					cookie = c
				}
			}
			if cookie == nil || cookie.Secure != tc.secure {
				t.Errorf("cookie = %+v, want Secure %v", cookie, tc.secure)
			}
		})
	}
}

func TestLoginRejectsBadInput(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.anonymous(t)
	for _, tc := range []struct {
		name  string
		body  any
		code  int
		field string
	}{
		{"wrong password", loginRequest{Password: "nope"}, http.StatusUnauthorized, ""},
		{"empty password", loginRequest{}, http.StatusBadRequest, "password"},
		{"password not a string", `{"password": 12}`, http.StatusBadRequest, "password"},
		{"broken JSON", `{"password": `, http.StatusBadRequest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, e := c.callErr("POST", "/api/login", tc.body)
			if code != tc.code || e.Field != tc.field || e.Error == "" {
				t.Errorf("= %d %+v, want %d naming %q", code, e, tc.code, tc.field)
			}
		})
	}
	// A form post (what a cross-site page could send) is refused.
	req, _ := http.NewRequest("POST", ts.base+"/api/login", strings.NewReader("password="+testPassword))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("form login = %d, want 415", resp.StatusCode)
	}
}

func TestLoginThrottle(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	ts := newTestServer(t, Options{Now: clock})
	c := ts.anonymous(t)
	for i := range loginFailures {
		if code, _ := c.callErr("POST", "/api/login", loginRequest{Password: "wrong"}); code != http.StatusUnauthorized {
			t.Fatalf("failure %d = %d, want 401", i+1, code)
		}
		now = now.Add(time.Minute)
	}
	// Past five failures within 15 minutes, even the right password waits.
	resp := c.do("POST", "/api/login", loginRequest{Password: testPassword})
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("after 5 failures = %d (Retry-After %q), want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// The window passes from the first failure: one more try is allowed.
	now = now.Add(loginWindow - 5*time.Minute)
	if code := c.call("POST", "/api/login", loginRequest{Password: testPassword}, nil); code != http.StatusOK {
		t.Fatalf("after the window = %d, want 200", code)
	}
}

// TestLoginThrottleHoldsUnderConcurrency: 30 wrong passwords sent at once
// from one address get at most 5 comparisons (401); the rest are refused
// with 429 and Retry-After before any is compared.
func TestLoginThrottleHoldsUnderConcurrency(t *testing.T) {
	ts := newTestServer(t, Options{})
	const n = 30
	codes := make([]int, n)
	retry := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", ts.base+"/api/login", strings.NewReader(`{"password":"wrong"}`))
			req.Header.Set("Content-Type", "application/json")
			<-start
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes[i], retry[i] = resp.StatusCode, resp.Header.Get("Retry-After")
		})
	}
	close(start)
	wg.Wait()
	var compared, refused int
	for i, code := range codes {
		switch code {
		case http.StatusUnauthorized:
			compared++
		case http.StatusTooManyRequests:
			refused++
			if retry[i] == "" {
				t.Errorf("429 without Retry-After")
			}
		default:
			t.Errorf("attempt %d = %d", i, code)
		}
	}
	if compared > loginFailures || compared+refused != n {
		t.Errorf("%d compared (401), %d refused (429) of %d; want at most %d compared", compared, refused, n, loginFailures)
	}
}

// TestThrottleCountsTheClientBehindTrustedProxies: behind the proxies of
// TRUSTED_PROXIES the throttle counts per client, the right-most address of
// X-Forwarded-For that is not a proxy; what the client wrote left of it
// cannot get it a fresh count. Without TRUSTED_PROXIES the header is
// ignored: a client cannot pose as many.
func TestThrottleCountsTheClientBehindTrustedProxies(t *testing.T) {
	try := func(ts *testServer, xff, password string) int {
		req, _ := http.NewRequest("POST", ts.base+"/api/login", strings.NewReader(`{"password":"`+password+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", xff)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	t.Run("behind trusted proxies", func(t *testing.T) {
		// The test's peer (127.0.0.1) is the outer proxy; 10.0.0.2 one behind it.
		ts := newTestServer(t, Options{TrustedProxies: []netip.Prefix{
			netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")}})
		for i := range loginFailures {
			spoofed := fmt.Sprintf("192.0.2.%d", i+1)
			if code := try(ts, spoofed+", 203.0.113.7, 10.0.0.2", "wrong"); code != http.StatusUnauthorized {
				t.Fatalf("failure %d = %d", i+1, code)
			}
		}
		if code := try(ts, "192.0.2.99, 203.0.113.7, 10.0.0.2", testPassword); code != http.StatusTooManyRequests {
			t.Errorf("the failing client with yet another address in front = %d, want 429", code)
		}
		if code := try(ts, "203.0.113.7, 198.51.100.2, 10.0.0.2", testPassword); code != http.StatusOK {
			t.Errorf("another client behind the same proxies = %d, want 200", code)
		}
	})
	t.Run("no trusted proxies", func(t *testing.T) {
		ts := newTestServer(t, Options{})
		for i := range loginFailures {
			try(ts, fmt.Sprintf("192.0.2.%d", i+1), "wrong")
		}
		if code := try(ts, "198.51.100.2", testPassword); code != http.StatusTooManyRequests {
			t.Errorf("the same peer with another X-Forwarded-For = %d, want 429", code)
		}
	})
}

func TestClientAddr(t *testing.T) {
	s := New(Options{TrustedProxies: []netip.Prefix{
		netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}})
	for _, tc := range []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"untrusted peer, header ignored", "198.51.100.1:4000", []string{"203.0.113.7"}, "198.51.100.1"},
		{"trusted peer without the header", "127.0.0.1:4000", nil, "127.0.0.1"},
		{"right-most untrusted", "127.0.0.1:4000", []string{"192.0.2.1, 203.0.113.7, 10.1.2.3"}, "203.0.113.7"},
		{"several headers are one list", "127.0.0.1:4000", []string{"192.0.2.1, 203.0.113.7", "10.1.2.3"}, "203.0.113.7"},
		{"every hop a proxy: the first", "127.0.0.1:4000", []string{"10.0.0.9, 10.0.0.8"}, "10.0.0.9"},
		{"garbage stops at the last proxy", "127.0.0.1:4000", []string{"203.0.113.7, unknown, 10.0.0.8"}, "10.0.0.8"},
		{"a hop with a port", "127.0.0.1:4000", []string{"203.0.113.7:5123"}, "203.0.113.7"},
		{"IPv6", "[fd00::1]:4000", []string{"2001:db8::7"}, "2001:db8::7"},
		{"IPv4 in IPv6 peer", "[::ffff:127.0.0.1]:4000", []string{"203.0.113.7"}, "203.0.113.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := http.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := s.clientAddr(r); got != tc.want {
				t.Errorf("clientAddr = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestSessionExpiresAfterThirtyIdleDays(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ts := newTestServer(t, Options{Now: func() time.Time { return now }})
	c := ts.login(t)
	now = now.Add(sessionIdle - time.Hour)
	if code := c.call("GET", "/api/me", nil, nil); code != http.StatusOK {
		t.Fatalf("after 29 days 23 hours = %d, want 200", code)
	}
	// That request moved the idle deadline.
	now = now.Add(sessionIdle - time.Hour)
	if code := c.call("GET", "/api/me", nil, nil); code != http.StatusOK {
		t.Fatalf("a used session = %d, want 200", code)
	}
	now = now.Add(sessionIdle + time.Second)
	if code := c.call("GET", "/api/me", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("after 30 idle days = %d, want 401", code)
	}
}

func TestEnsureAndSetPassword(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	pw, err := EnsurePassword(ctx, pool, "")
	if err != nil || len(pw.Generated) < 16 {
		t.Fatalf("generated = %+v, %v", pw, err)
	}
	stored, _ := db.Setting(ctx, pool, passwordSettingKey)
	if strings.Contains(string(stored), pw.Generated) || !strings.HasPrefix(string(stored), "$2") {
		t.Fatalf("stored %q is not a bcrypt hash", stored)
	}
	if again, err := EnsurePassword(ctx, pool, ""); err != nil || again != (Password{}) {
		t.Errorf("second start = %+v, %v; want nothing generated", again, err)
	}
	ts := newTestServer(t, Options{Pool: pool}) // sets testPassword through ADMIN_PASSWORD
	c := ts.login(t)
	if err := SetPassword(ctx, pool, "elevenchars"); err == nil || !strings.Contains(err.Error(), "at least 12 characters") {
		t.Errorf("an 11-character password: err = %v", err)
	}
	if err := SetPassword(ctx, pool, "another password\n"); err != nil {
		t.Fatal(err)
	}
	if code := c.call("GET", "/api/me", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("a login from before the change = %d, want 401", code)
	}
	if code := ts.anonymous(t).call("POST", "/api/login", loginRequest{Password: "another password"}, nil); code != http.StatusOK {
		t.Errorf("login with the new password = %d", code)
	}
}

// TestChangedAdminPasswordEndsSessions: a restart with the same
// ADMIN_PASSWORD keeps every login; one with another ends them all, and
// only the new password logs in.
func TestChangedAdminPasswordEndsSessions(t *testing.T) {
	ctx := context.Background()
	ts := newTestServer(t, Options{}) // ADMIN_PASSWORD=testPassword
	c := ts.login(t)
	restart := func(envPassword string) (Password, *client) {
		t.Helper()
		p, err := EnsurePassword(ctx, ts.pool, envPassword)
		if err != nil {
			t.Fatal(err)
		}
		again := &testServer{base: startServer(t, Options{Pool: ts.pool}), pool: ts.pool}
		moved := *c
		moved.base = again.base
		moved.http.Jar.SetCookies(mustURL(t, again.base), c.http.Jar.Cookies(mustURL(t, ts.base)))
		return p, &moved
	}

	p, same := restart(testPassword)
	if p.Replaced {
		t.Error("the same ADMIN_PASSWORD counted as a change")
	}
	if code := same.call("GET", "/api/me", nil, nil); code != http.StatusOK {
		t.Fatalf("a login after a restart with the same ADMIN_PASSWORD = %d, want 200", code)
	}

	p, changed := restart("a different passphrase")
	if !p.Replaced {
		t.Error("a new ADMIN_PASSWORD not reported as replacing the old one")
	}
	if code := changed.call("GET", "/api/me", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("a login after ADMIN_PASSWORD changed = %d, want 401", code)
	}
	if code := ts.anonymous(t).call("POST", "/api/login", loginRequest{Password: testPassword}, nil); code != http.StatusUnauthorized {
		t.Errorf("the old password = %d, want 401", code)
	}
	if code := ts.anonymous(t).call("POST", "/api/login", loginRequest{Password: "a different passphrase"}, nil); code != http.StatusOK {
		t.Errorf("the new password = %d, want 200", code)
	}
}
