package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// login posts password to the running app and returns a client holding the
// session and the CSRF token, or the status code on failure.
func webLogin(t *testing.T, base, password string) (*http.Client, int) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Post(base+"/api/login", "application/json", strings.NewReader(`{"password":"`+password+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return c, resp.StatusCode
}

func TestAdminPageLoginAndJobsUI(t *testing.T) {
	h := start(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// No ADMIN_PASSWORD: one is generated and written to DATA_DIR/admin-password
	// for this user only; the log says where it is and how to change it, not what it is.
	file := filepath.Join(h.env["DATA_DIR"], "admin-password")
	waitLog(t, ctx, h.stderr, regexp.MustCompile(`admin page password generated.*set-password.*path=`+regexp.QuoteMeta(file)))
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pw := strings.TrimSpace(string(b))
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, %v; want 0600", file, fi.Mode(), err)
	}
	if len(pw) < 16 || strings.Contains(h.stderr.String(), pw) {
		t.Errorf("generated password %q is in the log or too short:\n%s", pw, h.stderr.String())
	}

	resp, err := http.Get(h.httpURL + "/jobs/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/jobs/ logged out = %d, want 401", resp.StatusCode)
	}
	c, code := webLogin(t, h.httpURL, pw)
	if code != http.StatusOK {
		t.Fatalf("login with the password of the file = %d", code)
	}
	resp, err = c.Get(h.httpURL + "/jobs/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<title>River</title>") {
		t.Errorf("/jobs/ logged in = %d:\n%.300s", resp.StatusCode, body)
	}

	// set-password from stdin replaces it, logs everyone out and removes the file.
	var stdout, stderr bytes.Buffer
	if err := adminCmd(ctx, []string{"set-password"}, func(k string) string { return h.env[k] },
		strings.NewReader("a brand new passphrase\n"), &stdout, &stderr); err != nil {
		t.Fatalf("set-password: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(stdout.String(), "removed "+file) {
		t.Errorf("the generated password's file after set-password: %v; stdout %q", err, stdout.String())
	}
	if _, code := webLogin(t, h.httpURL, pw); code != http.StatusUnauthorized {
		t.Errorf("old password after set-password = %d, want 401", code)
	}
	c, code = webLogin(t, h.httpURL, "a brand new passphrase")
	if code != http.StatusOK {
		t.Errorf("new password = %d, want 200", code)
	}
	if err := adminCmd(ctx, []string{"set-password"}, func(k string) string { return h.env[k] },
		strings.NewReader("elevenchars\n"), &stdout, &stderr); err == nil {
		t.Error("an 11-character password was accepted")
	}

	// A restart with ADMIN_PASSWORD: it replaces the stored one, ends the
	// logins and removes a generated password's file left behind.
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := maps.Clone(h.env)
	env["ADMIN_PASSWORD"] = "the operator's passphrase"
	h.startRun(t, env)
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the generated password's file with ADMIN_PASSWORD set: %v", err)
	}
	resp, err = c.Get(h.httpURL + "/api/me")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a login from before ADMIN_PASSWORD = %d, want 401", resp.StatusCode)
	}
	if _, code := webLogin(t, h.httpURL, "the operator's passphrase"); code != http.StatusOK {
		t.Errorf("ADMIN_PASSWORD = %d, want 200", code)
	}
}

// TestGeneratedPasswordCannotBeStored: when DATA_DIR/admin-password cannot
// be written, the log says so with the path and the way out, the rest
// runs, and set-password makes the admin page usable.
func TestGeneratedPasswordCannotBeStored(t *testing.T) {
	h := startHarness(t, nil, func(h *harness) {
		// A directory with something in it where the file should go.
		if err := os.MkdirAll(filepath.Join(h.env["DATA_DIR"], "admin-password", "x"), 0o700); err != nil {
			t.Fatal(err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	line := waitLog(t, ctx, h.stderr, regexp.MustCompile(`(level=ERROR msg="admin page password generated but it could not be stored.*set-password.*)`))
	if !strings.Contains(line, "path="+filepath.Join(h.env["DATA_DIR"], "admin-password")) {
		t.Errorf("the error does not name the file: %s", line)
	}
	var stdout, stderr bytes.Buffer
	if err := adminCmd(ctx, []string{"set-password"}, func(k string) string { return h.env[k] },
		strings.NewReader("a brand new passphrase\n"), &stdout, &stderr); err != nil {
		t.Fatalf("set-password: %v\n%s", err, stderr.String())
	}
	if _, code := webLogin(t, h.httpURL, "a brand new passphrase"); code != http.StatusOK {
		t.Errorf("login after set-password = %d, want 200", code)
	}
}

// TestTrustedProxiesReachTheServer: TRUSTED_PROXIES is what the admin
// page believes X-Forwarded-Proto from; the test's own address is the proxy.
func TestTrustedProxiesReachTheServer(t *testing.T) {
	for _, tc := range []struct {
		proxies string
		secure  bool
	}{{"127.0.0.1", true}, {"", false}} {
		t.Run("TRUSTED_PROXIES="+tc.proxies, func(t *testing.T) {
			h := start(t, map[string]string{"ADMIN_PASSWORD": adminPassword, "TRUSTED_PROXIES": tc.proxies})
			req, _ := http.NewRequest("POST", h.httpURL+"/api/login", strings.NewReader(fmt.Sprintf(`{"password":%q}`, adminPassword)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Forwarded-Proto", "https")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			cs := resp.Cookies()
			if resp.StatusCode != http.StatusOK || len(cs) != 1 || cs[0].Secure != tc.secure {
				t.Errorf("login = %d, cookies %v; want one, Secure %v", resp.StatusCode, cs, tc.secure)
			}
		})
	}
}

// adminClient calls the admin API as a logged-in page would.
type adminClient struct {
	base string
	http *http.Client
	csrf string
}

// adminClient logs in to the running app's admin page with ADMIN_PASSWORD
// set to adminPassword.
func (h *harness) adminClient(t *testing.T) *adminClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &adminClient{base: h.httpURL, http: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
	var res struct {
		CSRFToken string `json:"csrf_token"`
	}
	c.call(t, "POST", "/api/login", &res, fmt.Sprintf(`{"password":%q}`, adminPassword))
	c.csrf = res.CSRFToken
	return c
}

// send sends body as JSON with the session's CSRF token, as the page does.
func (c *adminClient) send(t *testing.T, method, path string, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", c.csrf)
	req.Header.Set("Origin", c.base)
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// call sends body (JSON) and decodes the answer into out; a status of
// 300 or more fails the test.
func (c *adminClient) call(t *testing.T, method, path string, out any, body ...string) {
	t.Helper()
	var r *strings.Reader
	if len(body) > 0 {
		r = strings.NewReader(body[0])
	} else {
		r = strings.NewReader("")
	}
	resp := c.send(t, method, path, r)
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s = %s", method, path, resp.Status)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}
