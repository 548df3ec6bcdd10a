package jma

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestClientConditionalGet(t *testing.T) {
	var full, notModified atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full.Add(1)
		w.Header().Set("ETag", `"v1"`)
		w.Write([]byte("[]"))
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{BaseURL: srv.URL, HTTPClient: srv.Client()})
	for i, want := range []bool{true, false, false} {
		body, changed, err := c.Changed(t.Context(), "quake/data/list.json")
		if err != nil || changed != want || (changed && string(body) != "[]") {
			t.Fatalf("fetch %d: %q, %v, %v", i, body, changed, err)
		}
	}
	if full.Load() != 1 || notModified.Load() != 2 {
		t.Fatalf("%d full answers, %d not modified", full.Load(), notModified.Load())
	}
}
