package web

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestBodyLimits: each route reads at most its limit — login 4 KB, the
// JSON API 1 MB, an import 32 MB — and a larger body gets 413 with the
// limit in words, changing nothing.
func TestBodyLimits(t *testing.T) {
	a := newAPI(t)
	c := a.c

	t.Run("login", func(t *testing.T) {
		code, e := c.callErr("POST", "/api/login", loginRequest{Password: strings.Repeat("x", maxLoginBody)})
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(e.Error, "4096 バイト") {
			t.Errorf("a 4 KB password = %d %+v, want 413 naming the limit", code, e)
		}
	})

	t.Run("declared too large", func(t *testing.T) {
		// Refused on its headers: the server does not wait for 100 MB.
		status := rawExchange(t, a.base, "POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
			"Content-Length: 104857600\r\n\r\n")
		if !strings.Contains(status, "413") {
			t.Errorf("a declared 100 MB login = %q, want 413", status)
		}
	})

	t.Run("JSON API", func(t *testing.T) {
		title, content := "大きすぎる", strings.Repeat("あ", maxBody/3+1)
		code, e := c.callErr("POST", "/api/notes", noteRequest{Title: &title, Content: &content})
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(e.Error, fmt.Sprintf("%d バイト", maxBody)) {
			t.Errorf("a 1 MB note = %d %+v, want 413 naming the limit", code, e)
		}
		var notes []noteJSON
		if code := c.call("GET", "/api/notes", nil, &notes); code != http.StatusOK || len(notes) != 0 {
			t.Errorf("notes after the refused one = %d %+v, want none", code, notes)
		}
	})

	t.Run("import", func(t *testing.T) {
		exp := exportJSON{Format: exportFormat, Title: "長い会話", Messages: []messageJSON{
			{Role: "user", Content: strings.Repeat("長", maxBody/3)},
			{Role: "assistant", Content: strings.Repeat("い", maxBody/3)},
		}}
		if code, e := c.callErr("POST", "/chat/sessions/import", exp); code != http.StatusCreated {
			t.Errorf("a 2 MB import = %d %+v, want 201", code, e)
		}
	})
}

// rawExchange sends request on a connection of its own and returns the
// status line of the answer.
func rawExchange(t *testing.T, base, request string) string {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestSlowClientsAreCutOff: a client that trickles its headers or its body,
// or keeps an idle connection, is disconnected by the server's timeouts
// (short here) long before it is done.
func TestSlowClientsAreCutOff(t *testing.T) {
	ts := newTestServer(t, Options{
		ReadHeaderTimeout: 200 * time.Millisecond,
		ReadTimeout:       400 * time.Millisecond,
		IdleTimeout:       300 * time.Millisecond,
	})
	// Trickled at one byte every 20 ms, the slow part takes 10 s.
	slow := strings.Repeat("a", 500)
	for _, tc := range []struct {
		name, head, slow string
		answer           string // the status the server gives up with, "" for none
	}{
		{"headers", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ", slow, ""},
		{"body", "POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 514\r\n\r\n" +
			`{"password":"`, slow, "408"},
		{"idle", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", "", "200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(ts.base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tc.head); err != nil {
				t.Fatal(err)
			}
			read := make(chan string, 1)
			go func() {
				b, _ := io.ReadAll(conn) // until the server closes
				read <- string(b)
			}()
			sent, tick := 0, time.NewTicker(20*time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case got := <-read:
					if sent == len(tc.slow) && tc.slow != "" {
						t.Fatalf("the server waited for all %d bytes", sent)
					}
					if first, _, _ := strings.Cut(got, "\r\n"); !strings.Contains(first, tc.answer) || (tc.answer == "") != (got == "") {
						t.Errorf("answer %q, want %q", first, tc.answer)
					}
					return
				case <-tick.C:
					if sent < len(tc.slow) {
						if _, err := io.WriteString(conn, tc.slow[sent:sent+1]); err == nil {
							sent++
						}
					}
				case <-time.After(20 * time.Second):
					t.Fatalf("the connection is still open after %d bytes", sent)
				}
			}
		})
	}
}

// TestUploadsGetMoreTime: a logged-in upload may take longer than
// ReadTimeout (it has UploadTimeout); a login sent as slowly is cut off,
// and so is an upload without a login, which is refused before its body.
func TestUploadsGetMoreTime(t *testing.T) {
	a := newAPI(t, func(o *Options) {
		o.ReadTimeout = 300 * time.Millisecond
		o.UploadTimeout = time.Minute
	})
	exp, err := json.Marshal(exportJSON{Format: exportFormat, Title: "ゆっくり", Messages: []messageJSON{{Role: "user", Content: "こんにちは"}}})
	if err != nil {
		t.Fatal(err)
	}
	// slowly sends body in four parts over about 600 ms, twice ReadTimeout.
	slowly := func(c *client, path string, body []byte) int {
		pr, pw := io.Pipe()
		go func() {
			for i, n := 0, len(body)/4+1; i < len(body); i += n {
				time.Sleep(150 * time.Millisecond) // a slow uplink
				if _, err := pw.Write(body[i:min(i+n, len(body))]); err != nil {
					return
				}
			}
			pw.Close()
		}()
		req, _ := http.NewRequest("POST", c.base+path, pr)
		req.Header.Set("Content-Type", "application/json")
		if c.csrf != "" {
			req.Header.Set(csrfHeader, c.csrf)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			pr.CloseWithError(err)
			return 0 // cut off before an answer
		}
		resp.Body.Close()
		pr.Close()
		return resp.StatusCode
	}
	if code := slowly(a.c, "/chat/sessions/import", exp); code != http.StatusCreated {
		t.Errorf("a slow logged-in import = %d, want 201", code)
	}
	if code := slowly(a.anonymous(t), "/chat/sessions/import", exp); code != http.StatusUnauthorized {
		t.Errorf("a slow import without a login = %d, want 401", code)
	}
	if code := slowly(a.anonymous(t), "/api/login", []byte(`{"password":"`+testPassword+`"}`)); code == http.StatusOK {
		t.Errorf("a login slower than ReadTimeout = %d, want it cut off", code)
	}
}

// TestStreamOutlivesTimeouts: a chat answer streams for longer than every
// timeout (the message is an upload, so UploadTimeout too), to its end.
func TestStreamOutlivesTimeouts(t *testing.T) {
	a := newAPI(t, func(o *Options) {
		o.ReadTimeout = 300 * time.Millisecond
		o.UploadTimeout = 300 * time.Millisecond
		o.WriteTimeout = 300 * time.Millisecond
	})
	later := make(chan struct{})
	go func() {
		time.Sleep(time.Second) // the model thinks for three times the timeouts
		close(later)
	}()
	a.ollama.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "考えて"}, {Content: "います", Wait: later}}})
	evs := readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{Message: "ゆっくり考えて"}))
	var text string
	for _, e := range evs {
		if e.Type == "chunk" {
			text += e.Value.(string)
		}
	}
	if types := eventTypes(evs); !strings.HasSuffix(types, " done") || text != "考えています" {
		t.Errorf("events %s, text %q; want the whole answer and done", types, text)
	}
}

// TestBodyLimitsNameRoutes: a limit whose route was renamed would quietly
// fall back to maxBody.
func TestBodyLimitsNameRoutes(t *testing.T) {
	patterns := map[string]bool{}
	for _, rt := range New(Options{}).routes() {
		patterns[rt.Pattern] = true
	}
	for p := range bodyLimits {
		if !patterns[p] {
			t.Errorf("bodyLimits names %q, which is not a route", p)
		}
	}
}
