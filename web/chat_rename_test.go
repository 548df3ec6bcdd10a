package web

import (
	"net/http"
	"testing"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestRenameSessionIsKept: a conversation titled by its first message is
// renamed, and the list read afterwards (a reload) has the new name, also
// after the next turn.
func TestRenameSessionIsKept(t *testing.T) {
	a := newAPI(t)
	a.ollama.Script(ollamatest.Text("晴れです。"), ollamatest.Text("どういたしまして"))
	evs := readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{Message: "明日の天気は？"}))
	id := int64(evs[0].Value.(float64))
	title := func() string {
		t.Helper()
		var list []sessionJSON
		if code := a.c.call("GET", "/chat/sessions", nil, &list); code != http.StatusOK || len(list) != 1 {
			t.Fatalf("list = %d %+v", code, list)
		}
		return list[0].Title
	}
	if got := title(); got != "明日の天気は？" {
		t.Fatalf("title from the first message = %q", got)
	}
	var renamed sessionJSON
	if code := a.c.call("PATCH", "/chat/sessions/"+itoa(id), renameRequest{Title: "  天気の  相談 "}, &renamed); code != http.StatusOK || renamed.Title != "天気の 相談" {
		t.Fatalf("rename = %d %+v", code, renamed)
	}
	if got := title(); got != "天気の 相談" {
		t.Errorf("title after a reload = %q, want the new name", got)
	}
	readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{SessionID: id, Message: "ありがとう"}))
	if got := title(); got != "天気の 相談" {
		t.Errorf("title after the next turn = %q, want the new name", got)
	}
	if code := a.c.call("DELETE", "/chat/sessions/"+itoa(id), nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete = %d", code)
	}
	if code, _ := a.c.callErr("PATCH", "/chat/sessions/"+itoa(id), renameRequest{Title: "x"}); code != http.StatusNotFound {
		t.Errorf("rename a deleted conversation = %d, want 404", code)
	}
}
