package web

import (
	"net/http"
	"testing"
)

// A route whose part cmd/yorozu could not build answers 503 naming that
// part, and the page goes on working around it.
func TestMissingPartIsNamed(t *testing.T) {
	c := newTestServer(t, Options{}).quickSession(t)
	tests := []struct {
		method, path string
		body         any
		want         string
	}{
		{"GET", "/api/notes", nil, "メモリ は動いていません。"},
		{"GET", "/api/settings", nil, "設定 は動いていません。"},
		{"POST", "/chat/stream", streamRequest{Message: "こんにちは"}, "チャット は動いていません。"},
		{"POST", "/api/reminders/1/cancel", nil, "リマインダー は動いていません。"},
		{"GET", "/api/notes/1/revisions", nil, "ノートの履歴 は動いていません。"},
		{"GET", "/jobs/", nil, "ジョブ画面 は動いていません。"},
	}
	for _, tc := range tests {
		if code, e := c.callErr(tc.method, tc.path, tc.body); code != http.StatusServiceUnavailable || e.Error != tc.want {
			t.Errorf("%s %s = %d %q, want 503 %q", tc.method, tc.path, code, e.Error, tc.want)
		}
	}
	if code := c.call("GET", "/api/me", nil, nil); code != http.StatusOK {
		t.Errorf("GET /api/me without the parts = %d, want 200", code)
	}
}
