package web

import (
	"net/http"
	"testing"
)

func titles(ps []noteJSON) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Section + "/" + p.Title
	}
	return out
}

func TestNotesAPI(t *testing.T) {
	a := newAPI(t)
	c := a.c
	var a1, a2, b1 noteJSON
	for _, n := range []struct {
		out            *noteJSON
		title, section string
	}{{&a1, "買い物", "家"}, {&b1, "議事録", "仕事"}, {&a2, "掃除", "家"}} {
		if code := c.call("POST", "/api/notes", map[string]string{"title": n.title, "content": "メモ", "section": n.section}, n.out); code != http.StatusCreated {
			t.Fatalf("create %s = %d", n.title, code)
		}
	}
	var list []noteJSON
	c.call("GET", "/api/notes", nil, &list)
	if got := titles(list); len(got) != 3 || got[0] != "家/買い物" || got[1] != "家/掃除" || got[2] != "仕事/議事録" {
		t.Fatalf("order = %v, want the 家 pages together", got)
	}

	bad := []struct {
		name, method, path string
		body               any
		code               int
		field              string
	}{
		{"title taken", "POST", "/api/notes", map[string]string{"title": "買い物"}, http.StatusConflict, "title"},
		{"no title", "POST", "/api/notes", map[string]string{"content": "x"}, http.StatusBadRequest, "title"},
		{"content not a string", "POST", "/api/notes", `{"title": "x", "content": 3}`, http.StatusBadRequest, "content"},
		{"patch unknown", "PATCH", "/api/notes/999", map[string]string{"content": "x"}, http.StatusNotFound, ""},
		{"patch to a taken title", "PATCH", "/api/notes/" + itoa(a2.ID), map[string]string{"title": "買い物"}, http.StatusConflict, "title"},
		{"delete unknown", "DELETE", "/api/notes/999", nil, http.StatusNotFound, ""},
		{"reorder missing a page", "POST", "/api/notes/reorder", reorderRequest{PageID: a1.ID, Order: []int64{a1.ID, a2.ID}}, http.StatusBadRequest, "order"},
		{"reorder with an extra page", "POST", "/api/notes/reorder", reorderRequest{PageID: a1.ID, Order: []int64{a1.ID, a2.ID, b1.ID, 999}}, http.StatusBadRequest, "order"},
		{"reorder with a page twice", "POST", "/api/notes/reorder", reorderRequest{PageID: a1.ID, Order: []int64{a1.ID, a1.ID, b1.ID}}, http.StatusBadRequest, "order"},
		{"reorder splitting a section", "POST", "/api/notes/reorder", reorderRequest{PageID: a1.ID, Order: []int64{a1.ID, b1.ID, a2.ID}}, http.StatusBadRequest, "order"},
		{"reorder unknown page", "POST", "/api/notes/reorder", reorderRequest{PageID: 999, Order: []int64{a1.ID, a2.ID, b1.ID}}, http.StatusBadRequest, "page_id"},
		{"reorder order not ids", "POST", "/api/notes/reorder", `{"page_id": 1, "order": ["a"]}`, http.StatusBadRequest, "order"},
		{"rename onto another section", "POST", "/api/notes/sections/rename", map[string]string{"from": "家", "to": "仕事"}, http.StatusConflict, "to"},
		{"rename unknown section", "POST", "/api/notes/sections/rename", map[string]string{"from": "庭", "to": "畑"}, http.StatusNotFound, ""},
		{"rename without to", "POST", "/api/notes/sections/rename", map[string]string{"from": "家"}, http.StatusBadRequest, "to"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if code, e := c.callErr(tc.method, tc.path, tc.body); code != tc.code || e.Field != tc.field {
				t.Errorf("= %d %+v, want %d naming %q", code, e, tc.code, tc.field)
			}
		})
	}
	var after []noteJSON
	c.call("GET", "/api/notes", nil, &after)
	if got := titles(after); len(got) != 3 || got[0] != "家/買い物" || got[1] != "家/掃除" || got[2] != "仕事/議事録" {
		t.Fatalf("after refused changes, order = %v, want it unchanged", got)
	}

	// One request moves 掃除 into 仕事, after 議事録.
	var moved []noteJSON
	if code := c.call("POST", "/api/notes/reorder", reorderRequest{PageID: a2.ID, Section: ptr("仕事"), Order: []int64{a1.ID, b1.ID, a2.ID}}, &moved); code != http.StatusOK {
		t.Fatalf("reorder = %d", code)
	}
	if got := titles(moved); got[0] != "家/買い物" || got[1] != "仕事/議事録" || got[2] != "仕事/掃除" {
		t.Errorf("after the move = %v", got)
	}
	var p noteJSON
	if code := c.call("PATCH", "/api/notes/"+itoa(a1.ID), map[string]string{"title": "買い物リスト", "content": "牛乳"}, &p); code != http.StatusOK || p.Title != "買い物リスト" || p.Content != "牛乳" {
		t.Errorf("patch = %d %+v", code, p)
	}
	if code := c.call("POST", "/api/notes/sections/rename", map[string]string{"from": "仕事", "to": "職場"}, nil); code != http.StatusNoContent {
		t.Errorf("rename = %d", code)
	}
	if code := c.call("DELETE", "/api/notes/"+itoa(b1.ID), nil, nil); code != http.StatusNoContent {
		t.Errorf("delete = %d", code)
	}
	c.call("GET", "/api/notes", nil, &after)
	if got := titles(after); len(got) != 2 || got[0] != "家/買い物リスト" || got[1] != "職場/掃除" {
		t.Errorf("final = %v", got)
	}
}

func ptr(s string) *string { return &s }
