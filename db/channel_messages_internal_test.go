package db

import (
	"slices"
	"testing"
)

// TestCoverTerms: a phrase of ten characters is looked up by 5 of its 9
// two-character terms, which still hold each of its characters; words and
// single characters are kept.
func TestCoverTerms(t *testing.T) {
	for _, tc := range []struct{ terms, want []string }{
		{[]string{"って", "東京", "ワー", "タワ", "士山", "て富", "ーっ", "京タ", "富士"}, []string{"東京", "タワ", "士山", "て富", "ーっ"}},
		{[]string{"天気", "docker", "猫"}, []string{"天気", "docker", "猫"}},
		{[]string{"ああ"}, []string{"ああ"}},
		{[]string{"ab", "bc", "cd"}, []string{"ab", "bc", "cd"}},
	} {
		if got := coverTerms(tc.terms); !slices.Equal(got, tc.want) {
			t.Errorf("coverTerms(%v) = %v, want %v", tc.terms, got, tc.want)
		}
	}
}
