package bot

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkParts asserts what every split must hold: parts fit, fences balance,
// and the bodies put back together are the original text.
func checkParts(t *testing.T, text string, limit int, parts []part) {
	t.Helper()
	var joined strings.Builder
	for i, p := range parts {
		s := p.String()
		if n := utf8.RuneCountInString(s); n > limit {
			t.Errorf("part %d has %d runes, limit %d", i, n, limit)
		}
		if n := strings.Count(s, fence); n%2 != 0 {
			t.Errorf("part %d has %d fences (unbalanced): %q", i, n, short(s))
		}
		joined.WriteString(p.Body)
	}
	if joined.String() != text {
		t.Errorf("bodies do not add up to the original text")
	}
}

func TestSplitMessage(t *testing.T) {
	code := "```go\n" + strings.Repeat("fmt.Println(\"hello, world\") // 挨拶\n", 120) + "```\n"
	tests := []struct {
		name  string
		text  string
		limit int
		want  []string // nil: check invariants only
	}{
		{name: "short text is one part", text: "こんにちは。", limit: 2000, want: []string{"こんにちは。"}},
		{name: "exactly the limit", text: strings.Repeat("a", 2000), limit: 2000, want: []string{strings.Repeat("a", 2000)}},
		{
			name:  "paragraph boundary",
			text:  strings.Repeat("a", 1500) + "\n\n" + strings.Repeat("b", 1000),
			limit: 2000,
			want:  []string{strings.Repeat("a", 1500) + "\n\n", strings.Repeat("b", 1000)},
		},
		{
			name:  "japanese sentence boundary",
			text:  "今日は晴れ。明日は雨！本当？はい。",
			limit: 12,
			want:  []string{"今日は晴れ。明日は雨！", "本当？はい。"},
		},
		{
			name:  "sentence end keeps its closing bracket",
			text:  "彼は「行く。」と言った。それから",
			limit: 12,
			want:  []string{"彼は「行く。」と言った。", "それから"},
		},
		{
			name:  "english sentence boundary",
			text:  "One two three. Four five six seven",
			limit: 20,
			want:  []string{"One two three. ", "Four five six seven"},
		},
		{
			name:  "decimal point is no sentence end",
			text:  "pi is 3.14159265358979 ok",
			limit: 20,
			want:  []string{"pi is 3.141592653589", "79 ok"},
		},
		{
			name:  "hard cut without boundaries",
			text:  strings.Repeat("x", 5000),
			limit: 2000,
			want:  []string{strings.Repeat("x", 2000), strings.Repeat("x", 2000), strings.Repeat("x", 1000)},
		},
		{
			name:  "cjk only counts runes not bytes",
			text:  strings.Repeat("漢", 4500),
			limit: 2000,
			want:  []string{strings.Repeat("漢", 2000), strings.Repeat("漢", 2000), strings.Repeat("漢", 500)},
		},
		{
			name:  "fence reopened with its language tag",
			text:  "見てください:\n```python\nprint(1)\nprint(2)\nprint(3)\n```\n以上です。",
			limit: 40,
			want:  []string{"見てください:\n```python\nprint(1)\nprint(2)\n```", "```python\nprint(3)\n```\n以上です。"},
		},
		{name: "long code block", text: "説明です。\n\n" + code + "\nおわり。", limit: 2000},
		{name: "fence without tag", text: "```\n" + strings.Repeat("line\n", 900) + "```", limit: 2000},
		{name: "mixed paragraphs", text: strings.Repeat("段落です。とても長い説明が続きます。\n\n", 300), limit: 2000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parts := splitParts(tc.text, tc.limit)
			checkParts(t, tc.text, tc.limit, parts)
			if tc.want == nil {
				return
			}
			got := splitMessage(tc.text, tc.limit)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d parts, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("part %d = %q, want %q", i, short(got[i]), short(tc.want[i]))
				}
			}
		})
	}
}

func TestSplitLongCodeBlockKeepsLanguage(t *testing.T) {
	code := "```go\n" + strings.Repeat("x := compute(a, b) // 計算\n", 200) + "```\n"
	parts := splitMessage("前置き\n\n"+code+"\n後書き", 2000)
	if len(parts) < 3 {
		t.Fatalf("got %d parts, want at least 3", len(parts))
	}
	for i, p := range parts[1 : len(parts)-1] {
		if !strings.HasPrefix(p, "```go\n") {
			t.Errorf("part %d does not reopen the go block: %q", i+1, p[:20])
		}
	}
}

func FuzzSplitMessage(f *testing.F) {
	f.Add("a\n\nb。c```go\nd\n```e", 12)
	f.Add(strings.Repeat("あ。", 50), 7)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if limit < 40 || limit > 3000 || !utf8.ValidString(text) {
			t.Skip()
		}
		checkParts(t, text, limit, splitParts(text, limit))
	})
}

// short keeps failure messages readable.
func short(s string) string {
	if r := []rune(s); len(r) > 60 {
		return fmt.Sprintf("%s…(%d runes)…%s", string(r[:30]), len(r), string(r[len(r)-20:]))
	}
	return s
}
