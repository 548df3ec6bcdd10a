package page_test

import (
	"testing"

	"github.com/yorozu-bot/yorozu/tools/page"
	"github.com/yorozu-bot/yorozu/tools/page/pagetest"
)

func TestFooter(t *testing.T) {
	for _, tc := range []struct {
		name, text, token string
		more              bool
		want              string
	}{
		{"more", "abc", "tok", true, "abc\n\n---page-info---\nhas_more: true\nnext_token: tok"},
		{"more after newline", "abc\n", "tok", true, "abc\n\n\n---page-info---\nhas_more: true\nnext_token: tok"},
		{"empty text", "", "tok", true, "---page-info---\nhas_more: true\nnext_token: tok"},
		{"text ending in blank lines", "abc\n\n", "tok", true, "abc\n\n\n\n---page-info---\nhas_more: true\nnext_token: tok"},
		{"last page has no footer", "abc", "", false, "abc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := page.WithFooter(tc.text, tc.more, tc.token)
			if got != tc.want {
				t.Fatalf("WithFooter = %q, want %q", got, tc.want)
			}
			text, more, token := pagetest.ParseFooter(got)
			if text != tc.text || more != tc.more || token != tc.token {
				t.Errorf("ParseFooter = %q, %v, %q", text, more, token)
			}
		})
	}
}
