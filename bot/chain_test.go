package bot

import "testing"

// TestWebhookID: the id is read from a webhook's URL as Discord gives it
// (with or without an API version, a thread, a trailing slash); anything
// else names no webhook, so nothing else counts as yorozu's post.
func TestWebhookID(t *testing.T) {
	for _, tc := range []struct{ name, url, want string }{
		{"discord's form", "https://discord.com/api/webhooks/123456789012345678/abc-DEF_token", "123456789012345678"},
		{"versioned, in a thread", "https://discord.com/api/v10/webhooks/42/tok?thread_id=7", "42"},
		{"a proxy's base", "http://127.0.0.1:8080/prefix/api/webhooks/99/tok/", "99"},
		{"empty", "", ""},
		{"no webhook", "https://discord.com/api/channels/1/messages", ""},
		{"not an id", "https://discord.com/api/webhooks/abc/tok", ""},
		{"unparsable", "http://[::1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := webhookID(tc.url); got != tc.want {
				t.Errorf("webhookID(%q) = %q, want %q", tc.url, got, tc.want)
			}
		})
	}
}
