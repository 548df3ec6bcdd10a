package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

const testPassword = "correct horse battery"

// testServer is a started Server on a fresh database whose admin password
// is testPassword.
type testServer struct {
	*Server
	base string
	pool *pgxpool.Pool
}

func newTestServer(t testing.TB, opts Options) *testServer {
	t.Helper()
	if opts.Pool == nil {
		opts.Pool = dbtest.New(t)
	}
	if _, err := EnsurePassword(context.Background(), opts.Pool, testPassword); err != nil {
		t.Fatal(err)
	}
	opts.Addr = "127.0.0.1:0"
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := New(opts)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return &testServer{Server: s, base: "http://" + s.Addr(), pool: opts.Pool}
}

// client is a logged-in browser: a cookie jar with the session and the
// CSRF token, or an anonymous one before login.
type client struct {
	t    testing.TB
	base string
	http *http.Client
	csrf string
}

func (ts *testServer) anonymous(t testing.TB) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: ts.base, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// login logs in through the API, as the page does.
func (ts *testServer) login(t testing.TB) *client {
	t.Helper()
	c := ts.anonymous(t)
	var res csrfResponse
	if code := c.call("POST", "/api/login", loginRequest{Password: testPassword}, &res); code != http.StatusOK {
		t.Fatalf("login = %d", code)
	}
	c.csrf = res.CSRFToken
	return c
}

// quickSession stores a session directly (no bcrypt) and returns a client
// holding it.
func (ts *testServer) quickSession(t testing.TB) *client {
	t.Helper()
	token, csrf := rand.Text(), rand.Text()
	if err := db.InsertAdminSession(context.Background(), ts.pool, db.AdminSession{TokenHash: hashToken(token), CSRFToken: csrf}); err != nil {
		t.Fatal(err)
	}
	c := ts.anonymous(t)
	req, _ := http.NewRequest("GET", ts.base, nil)
	c.http.Jar.SetCookies(req.URL, []*http.Cookie{{Name: sessionCookie, Value: token}})
	c.csrf = csrf
	return c
}

// do sends a request; body is JSON-encoded unless it is a string or nil.
// The CSRF header is sent when the client has a token.
func (c *client) do(method, path string, body any) *http.Response {
	c.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = bytes.NewBufferString(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.csrf != "" {
		req.Header.Set(csrfHeader, c.csrf)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp
}

// call sends a request and decodes a JSON answer into out (when not nil);
// it returns the status code.
func (c *client) call(method, path string, body, out any) int {
	c.t.Helper()
	resp := c.do(method, path, body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			c.t.Fatalf("%s %s: decode %q: %v", method, path, b, err)
		}
	}
	return resp.StatusCode
}

// callErr sends a request that should fail and returns its status and error body.
func (c *client) callErr(method, path string, body any) (int, apiError) {
	c.t.Helper()
	resp := c.do(method, path, body)
	defer resp.Body.Close()
	var e apiError
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e
}
