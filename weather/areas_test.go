package weather

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestFindPlace(t *testing.T) {
	for _, tc := range []struct {
		text   string
		office string // "" when no place is found
		name   string
	}{
		{"大阪の明日の天気は？", "270000", "大阪府"},
		{"大阪府の天気", "270000", "大阪府"},
		{"大阪城のあたりは雨降ってる？", "270000", "大阪府"},
		{"東京都の天気は？", "130000", "東京都"}, // not 京都 inside it
		{"東京の天気", "130000", "東京都"},
		{"京都の天気", "260000", "京都府"},
		{"京都府は雪？", "260000", "京都府"},
		{"福島の天気", "070000", "福島県"},
		{"福岡の天気", "400000", "福岡県"},
		{"札幌は寒い？", "016000", "石狩・空知・後志地方"},
		{"北海道の天気", "016000", "石狩・空知・後志地方"},
		{"北広島の天気", "016000", "石狩・空知・後志地方"}, // Hokkaido's, not 広島
		{"広島の天気", "340000", "広島県"},
		{"函館の天気", "017000", "渡島・檜山地方"},
		{"帯広の天気", "014100", "十勝地方"},
		{"釧路の天気", "014100", "釧路・根室地方"},
		{"いわきは雨？", "070000", "福島県"},
		{"軽井沢の天気", "200000", "長野県"},
		{"仙台", "040000", "宮城県"},
		{"横浜で傘いる？", "140000", "神奈川県"},
		{"名古屋の気温", "230000", "愛知県"},
		{"神戸の天気", "280000", "兵庫県"},
		{"那覇の天気", "471000", "沖縄本島地方"},
		{"奄美は雨？", "460100", "奄美地方"},
		{"鹿児島の天気", "460100", "鹿児島県（奄美地方除く）"},
		{"石垣島の天気", "474000", "八重山地方"},
		{"さいたまの天気", "110000", "埼玉県"},
		{"weather in Osaka", "270000", "大阪府"},
		{"What's the weather like in TOKYO tomorrow?", "130000", "東京都"},
		{"Is it going to rain in Sapporo?", "016000", "石狩・空知・後志地方"},
		{"kyoto weather", "260000", "京都府"},
		{"Osaka-fu forecast", "270000", "大阪府"},
		{"山口さんに傘を貸した、大阪は雨？", "270000", "大阪府"},    // 山口さん is a person
		{"東京から大阪に行くけど、大阪は明日雨？", "270000", "大阪府"}, // the one asked about
		{"東京から大阪に行くんだけど", "130000", "東京都"},       // none asked about: the first
		{"Tokyoite weather", "", ""},             // a romanized name only as a whole word
		{"明日の天気は？", "", ""},
		{"アトランティスの天気は？", "", ""},
		{"津波は大丈夫？", "", ""},
	} {
		t.Run(tc.text, func(t *testing.T) {
			p, ok := FindPlace(tc.text)
			if tc.office == "" {
				if ok {
					t.Fatalf("FindPlace = %+v, want none", p)
				}
				return
			}
			if !ok || p.Office != tc.office || p.Name != tc.name {
				t.Fatalf("FindPlace = %+v, %v; want %s %s", p, ok, tc.office, tc.name)
			}
		})
	}
}

func TestUnknownPlace(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"アトランティスの天気は？", "アトランティス"},
		{"ロンドンの明日の天気", "ロンドン"},
		{"ムー大陸は雨？", "ムー大陸"},
		{"What's the weather in Atlantis?", "Atlantis"},
		{"weather for New Atlantis tomorrow", "New Atlantis"},
		{"大阪の天気は？", ""}, // known
		{"明日の天気は？", ""},
		{"来週月曜の天気は？", ""},
		{"今日は雨？", ""},
		{"地元の天気", ""},
		{"梅雨の天気はどう？", ""},
		{"運動会の天気", ""},
		{"白馬の天気", "白馬"}, // a town the table does not list
		{"実家の天気", "実家"}, // somewhere, but not known: the answer says which area it gives
		{"傘いる？", ""},
		{"What's the weather tomorrow?", ""},
		{"weather for Tomorrow", ""},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if got := UnknownPlace(tc.text); got != tc.want {
				t.Errorf("UnknownPlace = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPlaceTableIsJMAs checks the table against what JMA's area list
// holds: 58 offices, each code once, each a six-digit code of its
// prefecture, and the places read from another office's document naming
// their area.
func TestPlaceTableIsJMAs(t *testing.T) {
	code := regexp.MustCompile(`^[0-4][0-9]{5}$`)
	seen := map[string]bool{}
	for _, e := range placeNames {
		id := e.Office + "/" + e.Area
		if seen[id] {
			t.Errorf("%s listed twice", id)
		}
		seen[id] = true
		if !code.MatchString(e.Office) {
			t.Errorf("%s: office %q", e.Name, e.Office)
		}
		if e.Area != "" && (e.Station == "" || e.Area[:2] != e.Office[:2]) {
			t.Errorf("%s: area %q of office %s without a station of its own", e.Name, e.Area, e.Office)
		}
	}
	for _, e := range placeAreas {
		if OfficePlace(e.Office).Name != e.Name || e.Station == "" || !code.MatchString(e.Area) || e.Area[:2] != e.Office[:2] {
			t.Errorf("town %v: want its office's name, an area of the office and a station", e.Place)
		}
	}
	if len(placeNames) != 58 {
		t.Errorf("%d offices, JMA has 58", len(placeNames))
	}
	if p := OfficePlace("270000"); p.Name != "大阪府" {
		t.Errorf("OfficePlace(270000) = %+v", p)
	}
	if p := OfficePlace("460040"); p.Office != "460100" || p.Area != "460040" || p.Name != "奄美地方" {
		t.Errorf("OfficePlace(460040) = %+v, want 奄美地方 read from 460100", p)
	}
	if p := OfficePlace("999999"); p.Office != "999999" || p.Name != "" {
		t.Errorf("OfficePlace(999999) = %+v, want the bare office", p)
	}
}

// TestParsePlaceReadsTheAreaAndItsStation: a town is read for its own
// area and temperature station, not its office's first: 奄美 is published in
// 鹿児島's document, いわき is 浜通り's with 小名浜's temperatures, 軽井沢 is
// 中部's with its own. An area or station the document lacks gives way to
// the first, and the forecast says which area it is.
func TestParsePlaceReadsTheAreaAndItsStation(t *testing.T) {
	for _, tc := range []struct {
		doc, text     string
		area, station string
		weather       string // tomorrow's weather starts so
		min, max      int    // tomorrow's
	}{
		{"forecast_460100_2021072411.json", "奄美の天気", "奄美地方", "名瀬", "雨", 26, 29},
		{"forecast_460100_2021072411.json", "屋久島の天気", "種子島・屋久島地方", "種子島", "くもり", 27, 29},
		{"forecast_460100_2021072411.json", "鹿児島の天気", "薩摩地方", "鹿児島", "くもり", 27, 31},
		{"forecast_070000_2022022105.json", "いわきの天気", "福島県 浜通り", "小名浜", "", -3, 6},
		{"forecast_070000_2022022105.json", "会津の天気", "福島県 会津", "若松", "", -3, 1},
		{"forecast_070000_2022022105.json", "福島の天気", "福島県 中通り", "福島", "", -2, 2},
		{"forecast_200000_2022022508.json", "軽井沢の天気", "長野県 中部", "軽井沢", "", -10, 6},
		{"forecast_200000_2022022508.json", "松本の天気", "長野県 中部", "松本", "", -6, 10},
		{"forecast_200000_2022022508.json", "長野の天気", "長野県 北部", "長野", "", -6, 9},
	} {
		t.Run(tc.text, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			p, ok := FindPlace(tc.text)
			if !ok {
				t.Fatalf("no place in %q", tc.text)
			}
			f, err := ParsePlace(b, p)
			if err != nil {
				t.Fatal(err)
			}
			if f.Area != tc.area || f.Station != tc.station {
				t.Errorf("area %q station %q, want %q %q", f.Area, f.Station, tc.area, tc.station)
			}
			d := f.Days[1]
			if !strings.HasPrefix(d.Weather, tc.weather) || d.Min.N != tc.min || d.Max.N != tc.max {
				t.Errorf("tomorrow %q %v–%v, want %q… %d–%d", d.Weather, d.Min, d.Max, tc.weather, tc.min, tc.max)
			}
		})
	}

	b, err := os.ReadFile(filepath.Join("testdata", "forecast_460100_2021072411.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParsePlace(b, Place{Name: "鹿児島県（奄美地方除く）", Office: "460100", Area: "469999", Station: "どこか"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Area != "薩摩地方" || f.Station != "鹿児島" {
		t.Errorf("fallback area %q station %q, want 薩摩地方 鹿児島", f.Area, f.Station)
	}
	if _, err := Parse(b, "469999"); err == nil {
		t.Error("Parse took an area the document lacks")
	}
}

// BenchmarkFindPlace: a long message with no place in it, the worst case.
func BenchmarkFindPlace(b *testing.B) {
	text := strings.Repeat("来週の週末はどこかへ出かけたいけれど、雨が降るかどうか気になっています。", 20)
	for b.Loop() {
		if _, ok := FindPlace(text); ok {
			b.Fatal("found a place")
		}
	}
}
