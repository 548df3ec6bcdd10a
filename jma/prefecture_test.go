package jma

import "testing"

// Prefectures read as people write them come back as JMA's two-digit codes,
// and the codes of its lists as names; anything else is none.
func TestPrefectures(t *testing.T) {
	for _, tc := range []struct {
		in, code string
	}{
		{"13", "13"}, {"1", "01"}, {"01", "01"}, {"東京都", "13"}, {"東京", "13"},
		{"大阪", "27"}, {"京都", "26"}, {"沖縄", "47"}, {"北海道", "01"},
		{"48", ""}, {"0", ""}, {"東京県", ""}, {"Tokyo", ""}, {"", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			code, ok := PrefectureCode(tc.in)
			if code != tc.code || ok != (tc.code != "") {
				t.Errorf("PrefectureCode(%q) = %q, %v; want %q", tc.in, code, ok, tc.code)
			}
		})
	}
	for code, want := range map[string]string{"13": "東京都", "01": "北海道", "47": "沖縄県", "1": "", "+1": "", "48": "", "00": ""} {
		if got := PrefectureName(code); got != want {
			t.Errorf("PrefectureName(%q) = %q, want %q", code, got, want)
		}
	}
}

// Intensities read in JMA's notation or in Japanese come back in JMA's.
func TestReadIntensity(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"3", "3", true}, {"5-", "5-", true}, {"5弱", "5-", true}, {"震度6強", "6+", true},
		{"５弱", "5-", true}, {" 7 ", "7", true}, {"6－", "6-", true},
		{"8", "8", false}, {"0", "0", false}, {"5", "5", false}, {"", "", false}, {"弱", "-", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := ReadIntensity(tc.in)
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("ReadIntensity(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}
