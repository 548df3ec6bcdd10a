package scheduler

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A webhook's URL carries its token: whatever goes wrong, the error names
// the method and the cause, never the token; a message's path and the
// webhook's own query (a thread) both reach Discord.
func TestWebhookNeverQuotesItsToken(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
		if strings.Contains(r.URL.Path, "refused") {
			http.Error(w, `{"message": "Unknown Webhook"}`, http.StatusNotFound)
			return
		}
		_, _ = io.WriteString(w, `{"id": "1"}`)
	}))
	defer srv.Close()
	const token = "sEcReT-tOkEn"

	hook := webhook{url: srv.URL + "/api/webhooks/9/" + token + "?thread_id=77", client: srv.Client()}
	raw, status, err := hook.do(t.Context(), http.MethodPatch, "/messages/5", "wait=true", "application/json", []byte(`{}`))
	if err != nil || status != http.StatusOK || string(raw) != `{"id": "1"}` {
		t.Fatalf("edit: %q %d %v", raw, status, err)
	}
	if want := "PATCH /api/webhooks/9/" + token + "/messages/5?thread_id=77&wait=true"; got[0] != want {
		t.Errorf("request %q, want %q", got[0], want)
	}

	for _, tc := range []struct {
		name string
		hook webhook
	}{
		{"refused", webhook{url: srv.URL + "/api/webhooks/9/refused-" + token, client: srv.Client()}},
		{"unreachable", webhook{url: "http://127.0.0.1:1/api/webhooks/9/" + token}},
		{"not a URL", webhook{url: "http://[::1/api/webhooks/9/" + token}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.hook.do(t.Context(), http.MethodPost, "", "wait=true", "application/json", []byte(`{}`))
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "webhook POST") {
				t.Errorf("error %q: want one naming the method and not the token", err)
			}
		})
	}
}
