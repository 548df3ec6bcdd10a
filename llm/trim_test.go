package llm_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/llm"
)

func runes(s string) int { return utf8.RuneCountInString(s) }

const footer = "\n---page-info---\nhas_more: true\nnext_token: abc"

func TestTrimResult(t *testing.T) {
	para := strings.Repeat("word ", 100)  // 500 runes
	jp := strings.Repeat("今日は晴れです。", 100) // 800 runes
	tests := []struct {
		name  string
		in    string
		limit int
		want  string // exact result; empty means check only the properties below
		// properties
		wantPrefix string
		wantSuffix string
		notContain string
	}{
		{name: "short result untouched", in: "hello", limit: 10, want: "hello"},
		{name: "exactly at limit untouched", in: "0123456789", limit: 10, want: "0123456789"},
		{
			name:  "paragraph boundary preferred",
			in:    "first paragraph is here.\n\nsecond paragraph goes on and on and on and on",
			limit: 24 + runes(llm.TruncationMarker) + 10,
			want:  "first paragraph is here." + llm.TruncationMarker,
		},
		{
			name:  "word boundary when no paragraph fits",
			in:    "alpha beta gamma delta epsilon zeta eta theta iota kappa",
			limit: 14 + runes(llm.TruncationMarker),
			want:  "alpha beta" + llm.TruncationMarker,
		},
		{
			name:  "japanese punctuation is a word boundary",
			in:    "今日は晴れ、明日は雨です。明後日は曇りでしょう。その後は晴れるかもしれませんが、週末はまた雨です",
			limit: 15 + runes(llm.TruncationMarker),
			want:  "今日は晴れ、明日は雨です。" + llm.TruncationMarker,
		},
		{
			name:  "hard rune cut without boundaries",
			in:    strings.Repeat("あ", 50),
			limit: 10 + runes(llm.TruncationMarker),
			want:  strings.Repeat("あ", 10) + llm.TruncationMarker,
		},
		{
			name:       "far paragraph break loses to a near word break",
			in:         "a\n\n" + para,
			limit:      200,
			wantPrefix: "a\n\nword word",
			wantSuffix: "word" + llm.TruncationMarker,
		},
		{
			name:       "footer kept intact after marker",
			in:         para + footer,
			limit:      200,
			wantPrefix: "word word",
			wantSuffix: "word" + llm.TruncationMarker + footer,
		},
		{
			name:       "japanese body with footer",
			in:         jp + footer,
			limit:      100,
			wantSuffix: "です。" + llm.TruncationMarker + footer,
		},
		{
			name:       "page-info inside the body is not a footer",
			in:         "see ---page-info--- here " + para,
			limit:      100,
			wantPrefix: "see ---page-info--- here",
			wantSuffix: llm.TruncationMarker,
			notContain: "has_more",
		},
		{
			name:  "footer alone over the limit keeps footer",
			in:    para + footer,
			limit: 10,
			want:  llm.TruncationMarker + footer,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := llm.TrimResult(tc.in, tc.limit)
			if tc.want != "" {
				if got != tc.want {
					t.Fatalf("TrimResult = %q, want %q", got, tc.want)
				}
				return
			}
			if runes(got) > tc.limit {
				t.Errorf("len = %d runes, over limit %d", runes(got), tc.limit)
			}
			if !strings.HasPrefix(got, tc.wantPrefix) {
				t.Errorf("got %q, want prefix %q", got, tc.wantPrefix)
			}
			if !strings.HasSuffix(got, tc.wantSuffix) {
				t.Errorf("got %q, want suffix %q", got, tc.wantSuffix)
			}
			if tc.notContain != "" && strings.Contains(got, tc.notContain) {
				t.Errorf("got %q, must not contain %q", got, tc.notContain)
			}
		})
	}
}

func TestTrimResults(t *testing.T) {
	big := func(n int) string { return strings.Repeat("x", n-1) + "\n" }
	words := func(n int) string { return strings.Repeat("word ", n/5) }
	tests := []struct {
		name       string
		in         []string
		wantLens   []int // exact rune lengths; -1 = only checked by the other rules
		maxTotal   int
		keepFooter []bool
	}{
		{
			name:     "small results untouched",
			in:       []string{"a", "b"},
			wantLens: []int{1, 1},
		},
		{
			name:     "each result capped at 6000",
			in:       []string{words(10000), "ok"},
			wantLens: []int{-1, 2},
			maxTotal: llm.MaxResultChars + 2,
		},
		{
			name:     "results over 24000 cut proportionally",
			in:       []string{words(6000), words(6000), words(6000), words(6000), words(6000), words(3000)},
			maxTotal: llm.MaxTurnChars,
		},
		{
			name:     "short error result stays readable in a full round",
			in:       []string{words(6000), words(6000), words(6000), words(6000), words(6000), "Error: not found"},
			wantLens: []int{-1, -1, -1, -1, -1, runes("Error: not found")},
			maxTotal: llm.MaxTurnChars,
		},
		{
			name:       "footers survive both stages",
			in:         []string{words(9000) + footer, words(9000) + footer, words(9000) + footer, words(9000) + footer, words(9000) + footer},
			maxTotal:   llm.MaxTurnChars,
			keepFooter: []bool{true, true, true, true, true},
		},
		{
			name:     "exactly 24000 is not cut",
			in:       []string{big(6000), big(6000), big(6000), big(6000)},
			wantLens: []int{6000, 6000, 6000, 6000},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]string(nil), tc.in...)
			got := llm.TrimResults(tc.in, llm.MaxTurnChars)
			if len(got) != len(in) {
				t.Fatalf("got %d results, want %d", len(got), len(in))
			}
			total := 0
			for i, r := range got {
				total += runes(r)
				if tc.in[i] != in[i] {
					t.Errorf("input %d was modified", i)
				}
				if runes(r) > llm.MaxResultChars {
					t.Errorf("result %d: %d runes, over %d", i, runes(r), llm.MaxResultChars)
				}
				if tc.wantLens != nil && tc.wantLens[i] >= 0 && runes(r) != tc.wantLens[i] {
					t.Errorf("result %d: %d runes, want %d", i, runes(r), tc.wantLens[i])
				}
				if r != in[i] {
					body := strings.TrimSuffix(r, footer)
					if !strings.HasSuffix(body, llm.TruncationMarker) {
						t.Errorf("result %d cut without marker before footer: …%q", i, r[max(0, len(r)-80):])
					}
				}
				if tc.keepFooter != nil && tc.keepFooter[i] && !strings.HasSuffix(r, footer) {
					t.Errorf("result %d lost its footer: …%q", i, r[max(0, len(r)-80):])
				}
			}
			if tc.maxTotal > 0 && total > tc.maxTotal {
				t.Errorf("total %d runes, over %d", total, tc.maxTotal)
			}
		})
	}
}

func TestTrimResultsWithinWhatIsLeft(t *testing.T) {
	words := strings.Repeat("word ", 1000)
	got := llm.TrimResults([]string{words, words, "Error: x", words + footer}, 3000)
	total := 0
	for _, r := range got {
		total += runes(r)
	}
	if total > 3000 {
		t.Errorf("total %d runes, over the 3000 left", total)
	}
	if got[2] != "Error: x" || !strings.HasSuffix(got[3], llm.TruncationMarker+footer) {
		t.Errorf("short result or footer not kept: %q, …%q", got[2], got[3][max(0, len(got[3])-80):])
	}
	// Nothing left: results become the marker, footers still whole.
	got = llm.TrimResults([]string{words, words + footer}, 0)
	if got[0] != llm.TruncationMarker || got[1] != llm.TruncationMarker+footer {
		t.Errorf("with no budget left: %q", got)
	}
}
