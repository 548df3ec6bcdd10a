package llm

import (
	"strings"
	"testing"
)

func TestThinkSplitter(t *testing.T) {
	tests := []struct {
		name, in, visible, thinking string
	}{
		{name: "no tags", in: "こんにちは、世界", visible: "こんにちは、世界"},
		{name: "leading block", in: "<think>考え中</think>答えです", visible: "答えです", thinking: "考え中"},
		{name: "block in the middle", in: "a<think>b</think>c", visible: "ac", thinking: "b"},
		{name: "two blocks", in: "<think>x</think>A<think>y</think>B", visible: "AB", thinking: "xy"},
		{name: "unclosed block stays thinking", in: "A<think>secret plan", visible: "A", thinking: "secret plan"},
		{name: "stray closing tag dropped", in: "A</think>B", visible: "AB"},
		{name: "lookalike kept", in: "a <thinking> b <th", visible: "a <thinking> b <th"},
		{name: "less-than sign kept", in: "1 < 2 and x<t", visible: "1 < 2 and x<t"},
		{name: "empty block", in: "<think></think>ok", visible: "ok"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := func(t *testing.T, chunks []string) {
				t.Helper()
				var s thinkSplitter
				var vis, th strings.Builder
				for _, c := range chunks {
					v, k := s.Feed(c)
					if strings.Contains(v, "<think>") || strings.Contains(v, "</think>") {
						t.Fatalf("chunks %q: tag leaked into visible %q", chunks, v)
					}
					vis.WriteString(v)
					th.WriteString(k)
				}
				v, k := s.Flush()
				vis.WriteString(v)
				th.WriteString(k)
				if vis.String() != tc.visible || th.String() != tc.thinking {
					t.Fatalf("chunks %q: visible %q thinking %q, want %q %q", chunks, vis.String(), th.String(), tc.visible, tc.thinking)
				}
			}
			check(t, []string{tc.in})
			// Every split point into two chunks, then every pair into three.
			cuts := runeOffsets(tc.in)
			for _, i := range cuts {
				check(t, []string{tc.in[:i], tc.in[i:]})
				for _, j := range cuts {
					if j > i {
						check(t, []string{tc.in[:i], tc.in[i:j], tc.in[j:]})
					}
				}
			}
			// One rune per chunk, as a slow stream would send it.
			var one []string
			for _, r := range tc.in {
				one = append(one, string(r))
			}
			check(t, one)
		})
	}
}

func runeOffsets(s string) []int {
	var out []int
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}
