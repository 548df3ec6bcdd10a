package memory

import (
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

func TestSimilarity(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"将棋", "将棋", 1},
		{"Go", "go", 1},
		{"猫", "猫カフェ", 0.8},
		{"東京駅", "東京タワー", 2.0 / 6}, // 東京 shared of 東京 京駅 / 東京 京タ タワ ワー
		{"将棋", "ラーメン", 0},
		{"", "猫", 0},
	} {
		if got := similarity(tc.a, tc.b); got != tc.want {
			t.Errorf("similarity(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosestTag(t *testing.T) {
	now := time.Now()
	tags := func(names ...string) []db.RecentTag {
		out := make([]db.RecentTag, len(names))
		for i, n := range names {
			out[i] = db.RecentTag{Tag: n, At: now.Add(-time.Duration(i) * time.Minute)}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		tags  []db.RecentTag // newest first
		words []string
		want  string
	}{
		{"closest wins", tags("猫カフェ", "将棋", "猫"), []string{"猫"}, "猫"},
		{"said more often wins a tie", tags("猫カフェ", "猫ちゃん", "猫ちゃん"), []string{"猫"}, "猫ちゃん"},
		{"said more lately wins a tie", tags("猫カフェ", "猫ちゃん"), []string{"猫"}, "猫カフェ"},
		{"too far", tags("東京タワー"), []string{"京都"}, ""},
		{"no words", tags("将棋"), nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := closestTag(tc.tags, tc.words); got != tc.want {
				t.Errorf("closestTag = %q, want %q", got, tc.want)
			}
		})
	}
}
