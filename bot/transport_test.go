package bot

import (
	"net/http"
	"net/url"
	"testing"
)

type recordTransport struct{ got *http.Request }

func (r *recordTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.got = req
	return &http.Response{StatusCode: 204, Body: http.NoBody, Request: req}, nil
}

func TestRebaseClient(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, base, in, want string }{
		{"test server", "http://127.0.0.1:8080/", "https://discord.com/api/v9/users/@me", "http://127.0.0.1:8080/api/v9/users/@me"},
		{"proxy with path prefix", "https://proxy.example/discord/", "https://discord.com/api/v9/channels/1/messages?limit=5", "https://proxy.example/discord/api/v9/channels/1/messages?limit=5"},
		{"escaped path kept", "http://h/", "https://discord.com/api/v9/channels/1/messages/2/reactions/%F0%9F%91%8D/@me", "http://h/api/v9/channels/1/messages/2/reactions/%F0%9F%91%8D/@me"},
		{"cdn untouched", "http://h/", "https://cdn.discordapp.com/avatars/1/a.png", "https://cdn.discordapp.com/avatars/1/a.png"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recordTransport{}
			base, _ := url.Parse(tc.base)
			c := rebaseClient(&http.Client{Transport: rec}, base)
			resp, err := c.Get(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := rec.got.URL.String(); got != tc.want {
				t.Errorf("request went to %s, want %s", got, tc.want)
			}
		})
	}
}
