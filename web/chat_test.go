package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

func TestChatSessions(t *testing.T) {
	a := newAPI(t)
	c := a.c
	ctx := context.Background()
	discord := a.recordDiscordTurn(t, "555", "Discordからこんにちは", "こんにちは！")

	var created idResponse
	if code := c.call("POST", "/chat/sessions", createSessionRequest{Title: "買い物の相談", Model: "gemma3"}, &created); code != http.StatusCreated || created.ID == 0 {
		t.Fatalf("create = %d %+v", code, created)
	}
	var list []sessionJSON
	if code := c.call("GET", "/chat/sessions", nil, &list); code != http.StatusOK || len(list) != 2 {
		t.Fatalf("list = %d %+v", code, list)
	}
	if list[0].ID != created.ID || list[0].Source != "web" || list[0].Title != "買い物の相談" || list[0].Model != "gemma3" || list[0].ReadOnly {
		t.Errorf("newest first, the web chat: %+v", list[0])
	}
	if list[1].ID != discord.ID || list[1].Source != "discord" || !list[1].ReadOnly || list[1].Title != "Discord チャンネル（ID 555）" {
		t.Errorf("the Discord channel, read-only: %+v", list[1])
	}

	// Archived turns are in the history, marked.
	a.recordDiscordTurn(t, "555", "二回目", "はい")
	if _, err := db.ArchiveMessages(ctx, a.pool, discord.ID, []int64{1, 2}, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	var msgs []messageJSON
	if code := c.call("GET", "/chat/sessions/"+itoa(discord.ID)+"/messages", nil, &msgs); code != http.StatusOK || len(msgs) != 4 {
		t.Fatalf("messages = %d %+v", code, msgs)
	}
	if !msgs[0].Archived || !msgs[1].Archived || msgs[2].Archived || msgs[0].Content != "Discordからこんにちは" || msgs[0].Role != "user" {
		t.Errorf("messages: %+v", msgs)
	}

	// Export, then import as a new web chat with the same messages.
	resp := c.do("GET", "/chat/sessions/"+itoa(discord.ID)+"/export", nil)
	var exp exportJSON
	if err := json.NewDecoder(resp.Body).Decode(&exp); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") || len(exp.Messages) != 4 || exp.Format != exportFormat {
		t.Fatalf("export = %+v (%s)", exp, resp.Header.Get("Content-Disposition"))
	}
	var imported idResponse
	if code := c.call("POST", "/chat/sessions/import", exp, &imported); code != http.StatusCreated {
		t.Fatalf("import = %d", code)
	}
	var again []messageJSON
	c.call("GET", "/chat/sessions/"+itoa(imported.ID)+"/messages", nil, &again)
	if len(again) != 4 || again[3].Content != "はい" || !again[0].Archived || again[2].Archived {
		t.Errorf("imported messages: %+v", again)
	}

	for _, tc := range []struct {
		name, method, path string
		body               any
		code               int
		field              string
	}{
		{"delete a Discord chat", "DELETE", "/chat/sessions/" + itoa(discord.ID), nil, http.StatusForbidden, ""},
		{"delete unknown", "DELETE", "/chat/sessions/9999", nil, http.StatusNotFound, ""},
		{"messages of unknown", "GET", "/chat/sessions/9999/messages", nil, http.StatusNotFound, ""},
		{"export unknown", "GET", "/chat/sessions/9999/export", nil, http.StatusNotFound, ""},
		{"import a bad role", "POST", "/chat/sessions/import", exportJSON{Format: exportFormat, Messages: []messageJSON{{Role: "user"}, {Role: "robot"}}}, http.StatusBadRequest, "messages[1].role"},
		{"import another file", "POST", "/chat/sessions/import", map[string]any{"format": "other"}, http.StatusBadRequest, "format"},
		{"import broken JSON", "POST", "/chat/sessions/import", `{"format": "yorozu-chat/1", "messages": [`, http.StatusBadRequest, ""},
		{"create with a number title", "POST", "/chat/sessions", `{"title": 5}`, http.StatusBadRequest, "title"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, e := c.callErr(tc.method, tc.path, tc.body); code != tc.code || e.Field != tc.field {
				t.Errorf("= %d %+v, want %d naming %q", code, e, tc.code, tc.field)
			}
		})
	}
	if code := c.call("DELETE", "/chat/sessions/"+itoa(imported.ID), nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete web chat = %d", code)
	}
	// Gone at once from everywhere, its rows left to the purge.
	for _, path := range []string{"/messages", "/export", "/files", "/notes"} {
		if code := c.call("GET", "/chat/sessions/"+itoa(imported.ID)+path, nil, nil); code != http.StatusNotFound {
			t.Errorf("%s after delete = %d, want 404", path, code)
		}
	}
	if code := c.call("DELETE", "/chat/sessions/"+itoa(imported.ID), nil, nil); code != http.StatusNotFound {
		t.Errorf("delete again = %d, want 404", code)
	}
	c.call("GET", "/chat/sessions", nil, &list)
	if len(list) != 2 || list[0].ID == imported.ID || list[1].ID == imported.ID {
		t.Errorf("list after delete = %+v, want the two others", list)
	}
	var hits []searchHitJSON
	if code := c.call("GET", "/api/search?q=二回目", nil, &hits); code != http.StatusOK || len(hits) != 1 || hits[0].SessionID != discord.ID {
		t.Errorf("search after delete = %d %+v, want the Discord message only", code, hits)
	}
}

func TestSessionNotes(t *testing.T) {
	a := newAPI(t)
	c := a.c
	var created idResponse
	c.call("POST", "/chat/sessions", nil, &created)
	var p1, p2 noteJSON
	c.call("POST", "/api/notes", map[string]string{"title": "旅行の持ち物", "content": "歯ブラシ"}, &p1)
	c.call("POST", "/api/notes", map[string]string{"title": "献立", "content": "カレー"}, &p2)
	path := "/chat/sessions/" + itoa(created.ID) + "/notes"
	var got notesLinkJSON
	if code := c.call("PUT", path, notesLinkJSON{PageIDs: []int64{p1.ID, p2.ID}}, &got); code != http.StatusOK {
		t.Fatalf("put = %d", code)
	}
	if code, e := c.callErr("PUT", path, notesLinkJSON{PageIDs: []int64{p1.ID, 999}}); code != http.StatusBadRequest || e.Field != "page_ids" {
		t.Errorf("unknown page = %d %+v, want 400 naming page_ids", code, e)
	}
	if code, e := c.callErr("PUT", path, `{"page_ids": "1"}`); code != http.StatusBadRequest || e.Field != "page_ids" {
		t.Errorf("not an array = %d %+v", code, e)
	}
	c.call("GET", path, nil, &got)
	if len(got.PageIDs) != 2 {
		t.Errorf("links after a refused change = %v, want both still", got.PageIDs)
	}
	if code := c.call("PUT", path, notesLinkJSON{PageIDs: []int64{p2.ID}}, nil); code != http.StatusOK {
		t.Fatal(code)
	}
	c.call("GET", path, nil, &got)
	if len(got.PageIDs) != 1 || got.PageIDs[0] != p2.ID {
		t.Errorf("links = %v, want only %d", got.PageIDs, p2.ID)
	}
	if code := c.call("GET", "/chat/sessions/9999/notes", nil, nil); code != http.StatusNotFound {
		t.Errorf("unknown session = %d", code)
	}
}

func TestStreamEventsAndStoredTurn(t *testing.T) {
	a := newAPI(t)
	c := a.c
	var page noteJSON
	c.call("POST", "/api/notes", map[string]string{"title": "合言葉", "content": "やまかわ"}, &page)
	a.ollama.Script(
		ollamatest.ToolCalls(ollamatest.Call("web_search", map[string]any{"query": "東京 天気"})),
		ollamatest.ToolCalls(ollamatest.Call("write_note", map[string]any{"title": "天気メモ", "content": "晴れ", "mode": "create"})),
		ollamatest.Text("東京は", "晴れです。"),
	)
	resp := c.do("POST", "/chat/stream", streamRequest{Message: "東京の天気は？", NotePageIDs: []int64{page.ID}})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" ||
		resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("stream answer = %d %v", resp.StatusCode, resp.Header)
	}
	evs := readEvents(t, resp)
	want := "session_id tool tool sources tool tool notes_updated chunk chunk done"
	if got := eventTypes(evs); got != want {
		t.Fatalf("events = %s\nwant %s\n%+v", got, want, evs)
	}
	sessionID := int64(evs[0].Value.(float64))
	t1, t2 := evs[1].Value.(map[string]any), evs[2].Value.(map[string]any)
	if t1["id"] != t2["id"] || t1["status"] != "running" || t2["status"] != "done" || t1["name"] != "web_search" ||
		t1["detail"] != "東京 天気" || t1["label"] != "Web 検索" || t2["result"] != "1 件: 東京の天気" {
		t.Errorf("tool events: %v then %v", t1, t2)
	}
	if evs[4].Value.(map[string]any)["id"] == t1["id"] {
		t.Error("the second tool reused the first one's id")
	}
	srcs := evs[3].Value.([]any)
	if len(srcs) != 1 || srcs[0].(map[string]any)["url"] != "https://example.com/tenki" {
		t.Errorf("sources = %v", srcs)
	}
	if evs[7].Value != "東京は" || evs[8].Value != "晴れです。" {
		t.Errorf("chunks = %v %v", evs[7].Value, evs[8].Value)
	}
	if done := evs[9].Value.(map[string]any); done["calls"] != float64(3) {
		t.Errorf("done = %v", done)
	}
	// The linked page's full text was in this very turn's context.
	reqs := a.ollama.Requests()
	if b, _ := json.Marshal(reqs[0].Messages); !strings.Contains(string(b), "やまかわ") {
		t.Errorf("the linked note is not in the prompt: %s", b)
	}

	// Stored like a Discord turn, under a web key, in the same order.
	var msgs []messageJSON
	c.call("GET", "/chat/sessions/"+itoa(sessionID)+"/messages", nil, &msgs)
	if len(msgs) != 2 || msgs[0].Content != "東京の天気は？" || msgs[1].Content != "東京は晴れです。" || msgs[1].Model != testModel {
		t.Fatalf("stored = %+v", msgs)
	}
	sess, err := db.SessionItemByID(context.Background(), a.pool, sessionID)
	if err != nil || !strings.HasPrefix(sess.Key, "web:") || sess.Source != "web" || sess.Title != "東京の天気は？" {
		t.Errorf("session = %+v %v", sess, err)
	}

	// The next turn continues the conversation (no session_id event) with a chosen model.
	a.ollama.AddModel("gemma3", "completion")
	a.ollama.Script(ollamatest.Text("どういたしまして"))
	evs = readEvents(t, c.do("POST", "/chat/stream", streamRequest{SessionID: sessionID, Message: "ありがとう", Model: "gemma3"}))
	if got := eventTypes(evs); got != "chunk done" {
		t.Fatalf("second turn events = %s", got)
	}
	var second []byte
	for _, r := range a.ollama.Requests() {
		if r.Model == "gemma3" {
			second, _ = json.Marshal(r.Messages)
		}
	}
	if !strings.Contains(string(second), "東京は晴れです。") || !strings.Contains(string(second), "ありがとう") {
		t.Errorf("second turn with gemma3: history %s", second)
	}
	var list []sessionJSON
	c.call("GET", "/chat/sessions", nil, &list)
	if list[0].Model != "gemma3" {
		t.Errorf("the session's model = %q, want gemma3", list[0].Model)
	}
}

func TestStreamErrors(t *testing.T) {
	a := newAPI(t)
	c := a.c
	discord := a.recordDiscordTurn(t, "777", "やあ", "どうも")

	evs := readEvents(t, c.do("POST", "/chat/stream", streamRequest{Message: "こんにちは", Model: "llama3"}))
	if got := eventTypes(evs); got != "session_id error" || !strings.Contains(evs[1].Value.(string), "ollama pull llama3") {
		t.Errorf("missing model: %s %v", got, evs)
	}
	a.ollama.Down()
	evs = readEvents(t, c.do("POST", "/chat/stream", streamRequest{Message: "こんにちは"}))
	if got := eventTypes(evs); got != "session_id error" || evs[1].Value != unavailableText {
		t.Errorf("Ollama down: %s %v", got, evs)
	}
	a.ollama.Up()

	for _, tc := range []struct {
		name  string
		body  any
		code  int
		field string
	}{
		{"no message", streamRequest{}, http.StatusBadRequest, "message"},
		{"message not a string", `{"message": true}`, http.StatusBadRequest, "message"},
		{"unknown session", streamRequest{SessionID: 9999, Message: "x"}, http.StatusBadRequest, "session_id"},
		{"Discord session", streamRequest{SessionID: discord.ID, Message: "x"}, http.StatusForbidden, ""},
		{"unknown note", streamRequest{Message: "x", NotePageIDs: []int64{42}}, http.StatusBadRequest, "page_ids"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, e := c.callErr("POST", "/chat/stream", tc.body); code != tc.code || e.Field != tc.field {
				t.Errorf("= %d %+v, want %d naming %q", code, e, tc.code, tc.field)
			}
		})
	}
}

func TestStreamRateLimit(t *testing.T) {
	a := newAPI(t)
	a.opts.Deps.Limiter.Set(1, time.Hour)
	a.ollama.Script(ollamatest.Text("はい"))
	if evs := readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{Message: "一回目"})); eventTypes(evs) != "session_id chunk done" {
		t.Fatalf("first = %s", eventTypes(evs))
	}
	if code, e := a.c.callErr("POST", "/chat/stream", streamRequest{Message: "二回目"}); code != http.StatusTooManyRequests || e.Error != rateLimitedText {
		t.Errorf("over the limit = %d %+v, want 429 with the notice", code, e)
	}
}

// eventReader reads one SSE answer event by event.
type eventReader struct {
	t    *testing.T
	resp *http.Response
	sc   *bufio.Scanner
}

func openStream(t *testing.T, c *client, req streamRequest) *eventReader {
	t.Helper()
	resp := c.do("POST", "/chat/stream", req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream = %d", resp.StatusCode)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &eventReader{t: t, resp: resp, sc: bufio.NewScanner(resp.Body)}
}

// next returns the next event; the test fails when the stream ends first.
func (r *eventReader) next() event {
	r.t.Helper()
	for r.sc.Scan() {
		line, ok := strings.CutPrefix(r.sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			r.t.Fatalf("event %q: %v", line, err)
		}
		return ev
	}
	r.t.Fatalf("the stream ended: %v", r.sc.Err())
	return event{}
}

// rest reads the events up to the end of the stream.
func (r *eventReader) rest() string {
	r.t.Helper()
	return eventTypes(readEvents(r.t, r.resp))
}

// TestStreamQueued: a turn that must wait is told its place at once — behind
// another turn of the same conversation, or behind the one LLM slot — and
// is answered once its turn comes.
func TestStreamQueued(t *testing.T) {
	a := newAPI(t)
	hold := make(chan struct{})
	var mu sync.Mutex
	first := true
	a.ollama.Handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if first {
			first = false
			r := ollamatest.Text("一つ目の答え")
			r.Gate = hold
			return r
		}
		return ollamatest.Text("答え")
	})
	one := openStream(t, a.c, streamRequest{Message: "一つ目"})
	ev := one.next()
	if ev.Type != "session_id" {
		t.Fatalf("first event = %+v", ev)
	}
	sessionID := int64(ev.Value.(float64))
	waitFor(t, "the first turn at the model", func() bool { return a.ollama.ChatCalls() == 1 })

	// The same conversation: behind its first turn.
	same := openStream(t, a.c, streamRequest{SessionID: sessionID, Message: "二つ目"})
	if ev := same.next(); ev.Type != "queued" || ev.Value.(map[string]any)["position"] != float64(1) {
		t.Errorf("a second turn in the conversation: %+v, want queued at 1", ev)
	}
	// Another conversation: behind the one LLM slot.
	other := openStream(t, a.c, streamRequest{Message: "別の話"})
	if ev := other.next(); ev.Type != "session_id" {
		t.Fatalf("other conversation: %+v", ev)
	}
	if ev := other.next(); ev.Type != "queued" || ev.Value.(map[string]any)["position"] != float64(1) {
		t.Errorf("a turn while the model is busy: %+v, want queued at 1", ev)
	}

	close(hold)
	for name, r := range map[string]*eventReader{"first": one, "same conversation": same, "other conversation": other} {
		if got := r.rest(); !strings.HasSuffix(got, "chunk done") || strings.Contains(got, "error") {
			t.Errorf("%s: then %s, want its answer", name, got)
		}
	}
}

// waitFor polls cond until it holds, for at most ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: timed out", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestToolEventDetail(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{"query":"都道府県別人口","file_type":"csv"}`, "都道府県別人口"},
		{`{"url":"https://example.com/a.pdf","continue_from":"tok"}`, "https://example.com/a.pdf"},
		{`{"file_id":12}`, "12"},
		{`{"city":"大阪"}`, "大阪"},
		{`{}`, ""},
		{`{"a":1,"b":2}`, `{"a":1,"b":2}`},
	} {
		if got := argsDetail(tc.args); got != tc.want {
			t.Errorf("argsDetail(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// The model's thinking never reaches the page: only its answer is chunked.
func TestStreamNeverShowsThinking(t *testing.T) {
	a := newAPI(t)
	a.ollama.AddModel("qwen3:thinker", "completion", "tools", "thinking")
	a.ollama.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Thinking: "内緒の考え"}, {Thinking: "さらに考える"}, {Content: "答えです。"}}})
	evs := readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{Message: "考えて", Model: "qwen3:thinker"}))
	if got := eventTypes(evs); got != "session_id chunk done" {
		t.Fatalf("events = %s", got)
	}
	if b, _ := json.Marshal(evs); strings.Contains(string(b), "内緒") || evs[1].Value != "答えです。" {
		t.Errorf("events carry the thinking: %s", b)
	}
}
