package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// The admin page lists every space, shows a space's notes, and a web chat
// started in a space sees that space's memory and no other's.
func TestSpacesAPIAndAWebChatInAServersSpace(t *testing.T) {
	a := newAPI(t)
	c := a.c
	var inA, shared noteJSON
	if code := c.call("POST", "/api/notes", map[string]string{"title": "A の合言葉", "content": "やまかわ", "space": "guild:1"}, &inA); code != http.StatusCreated || inA.Space != "guild:1" {
		t.Fatalf("create in guild:1 = %d %+v", code, inA)
	}
	if code := c.call("POST", "/api/notes", map[string]string{"title": "ウェブのメモ", "content": "x"}, &shared); code != http.StatusCreated || shared.Space != "web" {
		t.Fatalf("create in the default space = %d %+v", code, shared)
	}

	var spaces struct {
		Default string            `json:"default"`
		Spaces  []db.SpaceSummary `json:"spaces"`
	}
	if code := c.call("GET", "/api/spaces", nil, &spaces); code != http.StatusOK || spaces.Default != "web" {
		t.Fatalf("spaces = %d %+v", code, spaces)
	}
	got := map[string]db.SpaceSummary{}
	for _, s := range spaces.Spaces {
		got[s.Key] = s
	}
	if got["guild:1"].Notes != 1 || got["web"].Notes != 1 || spaces.Spaces[0].Key != "guild:1" {
		t.Errorf("spaces %+v; want guild:1 first, one note in each", spaces.Spaces)
	}

	var list []noteJSON
	c.call("GET", "/api/notes?space=guild:1", nil, &list)
	if len(list) != 1 || list[0].Title != "A の合言葉" || list[0].Space != "guild:1" {
		t.Errorf("notes of guild:1 = %+v", list)
	}
	if code, e := c.callErr("POST", "/chat/sessions", map[string]string{"space": "guild/1"}); code != http.StatusBadRequest || e.Field != "space" {
		t.Errorf("a malformed space = %d %+v, want 400 naming space", code, e)
	}

	// A new web chat in guild:1: its prompt has guild:1's notes only.
	a.ollama.Script(ollamatest.Text("はい"))
	evs := readEvents(t, c.do("POST", "/chat/stream", streamRequest{Message: "合言葉は？", Space: "guild:1"}))
	if eventTypes(evs) != "session_id chunk done" {
		t.Fatalf("events = %s", eventTypes(evs))
	}
	var prompt strings.Builder
	for _, m := range a.ollama.Requests()[0].Messages {
		prompt.WriteString(m.Content + "\n")
	}
	if !strings.Contains(prompt.String(), "A の合言葉") || strings.Contains(prompt.String(), "ウェブのメモ") {
		t.Errorf("the chat in guild:1 saw:\n%s", prompt.String())
	}
	var sessions []sessionJSON
	c.call("GET", "/chat/sessions?space=guild:1", nil, &sessions)
	if len(sessions) != 1 || sessions[0].Space != "guild:1" || sessions[0].ID != int64(evs[0].Value.(float64)) {
		t.Errorf("sessions of guild:1 = %+v", sessions)
	}
}
