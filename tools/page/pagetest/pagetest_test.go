package pagetest

import "testing"

func TestParseTrimmedFooter(t *testing.T) {
	text, more, tok := ParseFooter("abc…[tool result truncated]\n---page-info---\nhas_more: true\nnext_token: t1")
	if text != "abc…[tool result truncated]" || !more || tok != "t1" {
		t.Errorf("ParseFooter = %q, %v, %q", text, more, tok)
	}
}
