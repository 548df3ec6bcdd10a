package chat

import "testing"

func TestFactOf(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"覚えておいて：私はエビアレルギー", "私はエビアレルギー"},
		{"覚えておいて:私はエビアレルギー", "私はエビアレルギー"},
		{"私はエビアレルギーだって覚えておいて", "私はエビアレルギー"},
		{"覚えといてね、僕は猫派", "僕は猫派"},
		{"僕は辛いものが苦手って覚えといて", "僕は辛いものが苦手"},
		{"私の誕生日は3月3日", "私の誕生日は3月3日"},
		{"自分の推しは初音ミク、覚えておいてね", "自分の推しは初音ミク"},
		{"remember that I'm vegetarian", "I'm vegetarian"},
		{"覚えておいて：", ""},
	} {
		if got := FactOf(tc.text); got != tc.want {
			t.Errorf("FactOf(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
