package memory_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/yorozu-bot/yorozu/memory"
)

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"猫", 1},
		{"こんにちは。", 6},
		{"abcd", 1},
		{"abcde", 2},
		{"Go 言語", 3}, // "Go " is one token, then two kanji
		{"！？", 2},
	}
	for _, tc := range tests {
		if got := memory.EstimateTokens(tc.text); got != tc.want {
			t.Errorf("EstimateTokens(%q) = %d; want %d", tc.text, got, tc.want)
		}
	}
}

// TestEstimateTokensCalibration keeps the estimate on the safe side of real
// tokenizers without wasting the budget: never below the reference count by
// more than 10%, never above twice it. See testdata/token_calibration.json
// for where the reference counts come from.
func TestEstimateTokensCalibration(t *testing.T) {
	data, err := os.ReadFile("testdata/token_calibration.json")
	if err != nil {
		t.Fatal(err)
	}
	var cal struct {
		Samples []struct {
			Name   string `json:"name"`
			Text   string `json:"text"`
			Tokens int    `json:"o200k_base_tokens"`
		} `json:"samples"`
	}
	if err := json.Unmarshal(data, &cal); err != nil {
		t.Fatal(err)
	}
	var est, ref int
	for _, s := range cal.Samples {
		got := memory.EstimateTokens(s.Text)
		ratio := float64(got) / float64(s.Tokens)
		t.Logf("%-12s reference %3d  estimate %3d  ratio %.2f", s.Name, s.Tokens, got, ratio)
		if ratio < 0.9 || ratio > 2.0 {
			t.Errorf("%s: estimate %d for %d reference tokens (ratio %.2f, want 0.9–2.0)", s.Name, got, s.Tokens, ratio)
		}
		est += got
		ref += s.Tokens
	}
	t.Logf("total: reference %d, estimate %d (%.2f)", ref, est, float64(est)/float64(ref))
}
