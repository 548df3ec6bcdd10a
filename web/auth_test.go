package web

import (
	"context"
	"net/http"
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

func TestSecureCookieBehindHTTPSProxy(t *testing.T) {
	ts := newTestServer(t, Options{})
	req, _ := http.NewRequest("POST", ts.base+"/api/login", strings.NewReader(`{"password":"`+testPassword+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-Proto", "https")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie && !c.Secure {
			t.Errorf("cookie behind an https proxy is not Secure: %+v", c)
		}
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

func TestThrottleUsesForwardedAddressFromLocalProxy(t *testing.T) {
	ts := newTestServer(t, Options{})
	try := func(addr, password string) int {
		req, _ := http.NewRequest("POST", ts.base+"/api/login", strings.NewReader(`{"password":"`+password+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", addr)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for range loginFailures {
		try("203.0.113.7", "wrong")
	}
	if code := try("203.0.113.7", testPassword); code != http.StatusTooManyRequests {
		t.Errorf("the failing client = %d, want 429", code)
	}
	if code := try("198.51.100.2", testPassword); code != http.StatusOK {
		t.Errorf("another client behind the same proxy = %d, want 200", code)
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
	if err != nil || len(pw) < 16 {
		t.Fatalf("generated = %q, %v", pw, err)
	}
	stored, _ := db.Setting(ctx, pool, passwordSettingKey)
	if strings.Contains(string(stored), pw) || !strings.HasPrefix(string(stored), "$2") {
		t.Fatalf("stored %q is not a bcrypt hash", stored)
	}
	if again, err := EnsurePassword(ctx, pool, ""); err != nil || again != "" {
		t.Errorf("second start = %q, %v; want nothing generated", again, err)
	}
	ts := newTestServer(t, Options{Pool: pool}) // sets testPassword through ADMIN_PASSWORD
	c := ts.login(t)
	if err := SetPassword(ctx, pool, "short"); err == nil {
		t.Error("a 5-character password was accepted")
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
