package disaster

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseIntensity(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Intensity
		name string
	}{
		{"", 0, ""}, {"1", 1, "1"}, {"4", 4, "4"}, {"5-", 5, "5弱"}, {"5+", 6, "5強"},
		{"6-", 7, "6弱"}, {"6+", 8, "6強"}, {"7", 9, "7"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseIntensity(tc.in)
			if err != nil || got != tc.want || got.String() != tc.name {
				t.Fatalf("ParseIntensity(%q) = %d (%q), %v; want %d (%q)", tc.in, got, got, err, tc.want, tc.name)
			}
		})
	}
	if _, err := ParseIntensity("9"); err == nil {
		t.Fatal(`"9" read as an intensity`)
	}
}

func TestParseQuakeListSkipsMalformedEntries(t *testing.T) {
	reports, bad, err := ParseQuakeList(read(t, "quake_list.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 5 {
		t.Fatalf("%d reports read, want 5", len(reports))
	}
	var keys []string
	for _, b := range bad {
		keys = append(keys, b.Key)
	}
	if strings.Join(keys, ",") != "bad_maxi.json,bad_rdt.json,bad_eid.json" {
		t.Fatalf("bad entries %v", keys)
	}
	quakes := Quakes(reports)
	if len(quakes) != 3 {
		t.Fatalf("%d earthquakes, want 3", len(quakes))
	}
	seven := quakes[len(quakes)-1]
	if seven.Max != 9 || seven.Max.String() != "7" || seven.Prefs[1].Max.String() != "6弱" || seven.DepthKm != 0 {
		t.Fatalf("the 7 read as %+v", seven)
	}
	noto := quakes[0]
	if noto.Latest.Title != "震源・震度情報" || noto.Max.String() != "5強" || noto.Magnitude != "5.6" || noto.DepthKm != 10 {
		t.Fatalf("the 5+ read as %+v", noto)
	}
	if got := noto.MaxIn([]string{"16"}); got != 4 {
		t.Fatalf("in Toyama %v, want 4", got)
	}
	if got := noto.MaxIn([]string{"47"}); got != 0 {
		t.Fatalf("in Okinawa %v, want 0", got)
	}
}

func TestQuakesMergeReports(t *testing.T) {
	// The newest report of an earthquake is a 震源に関する情報 (no
	// intensities): the intensities come from the 震度速報 before it.
	reports, _, err := ParseQuakeList(read(t, "quake_02_detail.json"))
	if err != nil {
		t.Fatal(err)
	}
	var hypo, sokuhou []QuakeReport
	for _, r := range reports {
		switch r.Title {
		case "震源に関する情報":
			hypo = append(hypo, r)
		case "震度速報":
			sokuhou = append(sokuhou, r)
		}
	}
	q := Quakes(append(hypo, sokuhou...))[0]
	if q.Latest.Title != "震源に関する情報" || q.Hypocenter != "石川県能登地方" || q.Max.String() != "5強" || len(q.Prefs) != 3 {
		t.Fatalf("merged %+v", q)
	}
}

func TestQuakePost(t *testing.T) {
	var names map[string]map[string]struct{ Name string }
	if err := json.Unmarshal(read(t, "area.json"), &names); err != nil {
		t.Fatal(err)
	}
	cities := map[string]string{}
	for code, a := range names["class20s"] {
		cities[code] = a.Name
	}
	reports, _, _ := ParseQuakeList(read(t, "quake_02_detail.json"))
	p := QuakePost(Quakes(reports)[0], []string{"17"}, cities)
	for _, want := range []string{"【強い揺れ】", "最大震度5強", "石川県能登地方（深さ約10km）", "M5.6", "震度5強　石川県（輪島市、能登町 震度5弱、七尾市 震度4）",
		"震度4　富山県\n", "震源・震度情報　1月10日 9時05分発表", Source} {
		if !strings.Contains(p.Content, want) {
			t.Errorf("post lacks %q:\n%s", want, p.Content)
		}
	}
	if p.Title != "1月10日 9時00分ごろ 石川県能登地方 M5.6 最大震度5強" {
		t.Errorf("title %q", p.Title)
	}
}

func TestTsunamiReport(t *testing.T) {
	entries, bad, err := ParseTsunamiList(read(t, "tsunami_list_cleared.json"))
	if err != nil || len(bad) != 0 || len(entries) != 3 {
		t.Fatalf("%d entries, bad %v, %v", len(entries), bad, err)
	}
	r, err := ParseTsunamiReport(entries[2], read(t, "tsunami_VTSE41_warning.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Level() != TsunamiWarning || r.Areas[0].Name != "石川県能登" || r.Areas[0].Arrival != "9時10分" || r.Areas[0].Height != "３ｍ" {
		t.Fatalf("report %+v", r)
	}
	if !r.Relevant([]string{"16"}) || r.Relevant([]string{"13"}) || !r.Relevant(nil) {
		t.Fatal("relevance by prefecture wrong")
	}
	p := TsunamiPost(r, []string{"17"})
	for _, want := range []string{"**津波警報**", "【津波警報】石川県能登（第1波 9時10分、予想高さ ３ｍ）", "【津波注意報】石川県加賀（第1波 津波到達中と推測", "ほかの沿岸の1区域", "高い所へ避難"} {
		if !strings.Contains(p.Content, want) {
			t.Errorf("post lacks %q:\n%s", want, p.Content)
		}
	}
	c, err := ParseTsunamiReport(entries[0], read(t, "tsunami_VTSE41_cleared.json"))
	if err != nil || c.Level() != TsunamiNone {
		t.Fatalf("cleared %+v, %v", c, err)
	}
	if p := TsunamiPost(c, nil); !strings.Contains(p.Content, "解除されました") {
		t.Errorf("cleared post:\n%s", p.Content)
	}
}

func TestParseWarnings(t *testing.T) {
	w, err := ParseWarnings("130000", read(t, "warning_130000_issued.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.Codes(), ","); got != "03,14,15" {
		t.Fatalf("codes in force %s", got)
	}
	p := WarningPost(w, "03", false, map[string]string{"130010": "東京地方"})
	if !strings.Contains(p.Content, "⚠️ **大雨警報**（東京都）") || !strings.Contains(p.Content, "対象：東京地方") {
		t.Errorf("post:\n%s", p.Content)
	}
	c, err := ParseWarnings("130000", read(t, "warning_130000_cleared.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Codes(), ","); got != "10,14" {
		t.Fatalf("codes in force after 解除 %s", got)
	}
}
