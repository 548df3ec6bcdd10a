package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// startLong starts a turn whose answer waits on release after 書きかけ, and
// reads its stream up to that text; it returns the session id and a func
// that drops the connection.
func startLong(t *testing.T, a *apiServer, release chan struct{}) (int64, func()) {
	t.Helper()
	a.ollama.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "書きかけ"}, {Content: "、続き。", Wait: release}}})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", a.base+"/chat/stream", strings.NewReader(`{"message":"長い話をして"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(csrfHeader, a.c.csrf)
	resp, err := a.c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	var id int64
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "session_id" {
			id = int64(ev.Value.(float64))
		}
		if ev.Type == "chunk" {
			break
		}
	}
	return id, func() { cancel(); resp.Body.Close() }
}

func waitStored(t *testing.T, a *apiServer, id int64, want string) []db.Message {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ms, _ := db.SessionMessages(context.Background(), a.pool, id, 10)
		if len(ms) == 2 && ms[1].Content == want {
			return ms
		}
		if time.Now().After(deadline) {
			t.Fatalf("stored %+v, want the answer %q", ms, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTurnOutlivesThePage: a page that goes away mid-answer does not cut
// it; a page that comes back follows it from the last event it saw and gets
// the rest, and the whole answer is kept.
func TestTurnOutlivesThePage(t *testing.T) {
	a := newAPI(t)
	release := make(chan struct{})
	id, drop := startLong(t, a, release)
	drop()

	var ss []sessionJSON
	a.c.call("GET", "/chat/sessions", nil, &ss)
	if len(ss) != 1 || !ss[0].Live {
		t.Fatalf("sessions while the answer runs = %+v, want it live", ss)
	}
	req, _ := http.NewRequest("GET", a.base+"/chat/sessions/"+itoa(id)+"/live", nil)
	req.Header.Set("Last-Event-ID", "1") // the first chunk was seen
	resp, err := a.c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	close(release)
	evs := readEvents(t, resp)
	if got := eventTypes(evs); got != "live chunk done" {
		t.Fatalf("resumed stream = %s", got)
	}
	if evs[0].Value.(map[string]any)["message"] != "長い話をして" || evs[1].Value != "、続き。" {
		t.Errorf("resumed events = %+v", evs)
	}
	waitStored(t, a, id, "書きかけ、続き。")

	resp = a.c.do("GET", "/chat/sessions/"+itoa(id)+"/live", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("live after the end = %d, want 204", resp.StatusCode)
	}
}

// TestStopKeepsTheAnswer: 停止 ends the turn; what was written is kept as
// written and recorded as stopped (the page shows the mark beside it: the
// browser test), and neither the kept text, an export nor the next turn's
// model carries the mark.
func TestStopKeepsTheAnswer(t *testing.T) {
	a := newAPI(t)
	release := make(chan struct{})
	defer close(release)
	id, drop := startLong(t, a, release)
	defer drop()
	resp := a.c.do("POST", "/chat/sessions/"+itoa(id)+"/stop", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("stop = %d", resp.StatusCode)
	}
	waitStored(t, a, id, "書きかけ")

	var ms []messageJSON
	a.c.call("GET", "/chat/sessions/"+itoa(id)+"/messages", nil, &ms)
	if len(ms) != 2 || !ms[1].Stopped {
		t.Errorf("history = %+v, want the answer marked stopped", ms)
	}
	var exp exportJSON
	a.c.call("GET", "/chat/sessions/"+itoa(id)+"/export", nil, &exp)
	if len(exp.Messages) != 2 || !exp.Messages[1].Stopped || exp.Messages[1].Content != "書きかけ" {
		t.Errorf("export = %+v, want the answer as written, flagged stopped", exp.Messages)
	}
	a.ollama.Script(ollamatest.Text("はい。"))
	readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{SessionID: id, Message: "続けて"}))
	reqs := a.ollama.Requests()
	last := reqs[len(reqs)-1]
	var seen bool
	for _, m := range last.Messages {
		if m.Role == "assistant" && strings.Contains(m.Content, chat.StoppedMark) {
			t.Errorf("the next request carries the mark the page shows: %q", m.Content)
		}
		seen = seen || (m.Role == "assistant" && m.Content == "書きかけ")
	}
	if !seen {
		t.Errorf("the next request does not carry the stopped answer: %+v", last.Messages)
	}
}

// TestDeleteStopsTheAnswer: deleting a conversation mid-answer stops the
// answer and keeps it into the conversation before the delete returns, so
// the purge takes it too and nothing written later brings the
// conversation back.
func TestDeleteStopsTheAnswer(t *testing.T) {
	a := newAPI(t)
	release := make(chan struct{})
	defer close(release)
	id, drop := startLong(t, a, release)
	defer drop()
	resp := a.c.do("DELETE", "/chat/sessions/"+itoa(id), nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete = %d", resp.StatusCode)
	}
	ms, err := db.SessionMessages(context.Background(), a.pool, id, 10)
	if err != nil || len(ms) != 2 || ms[1].Content != "書きかけ" {
		t.Fatalf("rows of the deleted conversation when the delete returned = %+v, %v; want the stopped answer kept", ms, err)
	}
	var ss []sessionJSON
	a.c.call("GET", "/chat/sessions", nil, &ss)
	if len(ss) != 0 {
		t.Errorf("sessions after delete = %+v, want none (and none live)", ss)
	}
}
