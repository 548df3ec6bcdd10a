package disaster

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// TsunamiForecastTitle is the title of the reports that carry warnings
// per coastal area (VTSE41); the other tsunami reports (observed heights,
// far tsunamis) are not read.
const TsunamiForecastTitle = "津波警報・注意報・予報"

// Tsunami levels, as TsunamiArea.Level gives them.
const (
	TsunamiNone     = 0 // 津波予報 (slight sea-level change), 解除, 津波なし
	TsunamiAdvisory = 1 // 津波注意報
	TsunamiWarning  = 2 // 津波警報
	TsunamiMajor    = 3 // 大津波警報
)

// TsunamiEntry is one entry of the tsunami list.
type TsunamiEntry struct {
	EventID    string // eid: the earthquake it follows
	ID         string // its detail file (json), under bosai/tsunami/data/
	Title      string
	InfoType   string // 発表, 訂正, 取消
	ReportedAt time.Time
	Hypocenter string
	Magnitude  string
}

type rawTsunamiEntry struct {
	Eid  string     `json:"eid"`
	Rdt  string     `json:"rdt"`
	Ttl  string     `json:"ttl"`
	Ift  string     `json:"ift"`
	Anm  string     `json:"anm"`
	Mag  flexString `json:"mag"`
	JSON string     `json:"json"`
}

// ParseTsunamiList reads the tsunami list; entries that do not read are
// returned as BadEntry and left out.
func ParseTsunamiList(body []byte) ([]TsunamiEntry, []BadEntry, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		return nil, nil, fmt.Errorf("tsunami list: %w", err)
	}
	var out []TsunamiEntry
	var bad []BadEntry
	for i, raw := range raws {
		var r rawTsunamiEntry
		err := json.Unmarshal(raw, &r)
		if err == nil {
			e := TsunamiEntry{EventID: strings.TrimSpace(r.Eid), ID: strings.TrimSpace(r.JSON), Title: r.Ttl, InfoType: r.Ift,
				Hypocenter: r.Anm, Magnitude: string(r.Mag)}
			e.ReportedAt, err = time.Parse(time.RFC3339, r.Rdt)
			switch {
			case err != nil:
				err = fmt.Errorf("rdt %q: %w", r.Rdt, err)
			case e.EventID == "" || e.ID == "":
				err = errors.New("no eid or json")
			case strings.Contains(e.ID, "/") || strings.Contains(e.ID, ".."):
				err = fmt.Errorf("json %q is not a file name", e.ID)
			default:
				out = append(out, e)
				continue
			}
		}
		bad = append(bad, BadEntry{Key: entryKey(raw, i), Err: err})
	}
	return out, bad, nil
}

// TsunamiArea is one coastal area (津波予報区) of a tsunami report.
type TsunamiArea struct {
	Code, Name string
	Kind       string // 大津波警報, 津波警報, 津波注意報, 津波予報（若干の海面変動）, 津波注意報解除, …
	KindCode   string
	Arrival    string // 第1波の到達予想: a time (15時30分) or a condition (津波到達中と推測)
	Height     string // 予想される高さ: "３ｍ", "巨大"
}

// Level is the area's level (TsunamiNone … TsunamiMajor).
func (a TsunamiArea) Level() int {
	switch {
	case strings.Contains(a.Kind, "解除"):
		return TsunamiNone
	case strings.Contains(a.Kind, "大津波警報"):
		return TsunamiMajor
	case strings.Contains(a.Kind, "津波警報"):
		return TsunamiWarning
	case strings.Contains(a.Kind, "津波注意報"):
		return TsunamiAdvisory
	}
	return TsunamiNone
}

// TsunamiReport is one 津波警報・注意報・予報 report.
type TsunamiReport struct {
	Entry    TsunamiEntry
	Headline string
	Areas    []TsunamiArea // strongest level first
}

// Level is the strongest level of any area.
func (r TsunamiReport) Level() int {
	l := TsunamiNone
	for _, a := range r.Areas {
		l = max(l, a.Level())
	}
	return l
}

// ParseTsunamiReport reads a report's detail file (Body.Tsunami.Forecast:
// one Item, or a list of them, per coastal area).
func ParseTsunamiReport(e TsunamiEntry, body []byte) (TsunamiReport, error) {
	var raw struct {
		Head struct {
			Headline struct {
				Text string `json:"Text"`
			} `json:"Headline"`
		} `json:"Head"`
		Body struct {
			Tsunami struct {
				Forecast struct {
					Item json.RawMessage `json:"Item"`
				} `json:"Forecast"`
			} `json:"Tsunami"`
		} `json:"Body"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return TsunamiReport{}, fmt.Errorf("tsunami report %s: %w", e.ID, err)
	}
	type item struct {
		Area struct {
			Code string `json:"Code"`
			Name string `json:"Name"`
		} `json:"Area"`
		Category struct {
			Kind struct {
				Code string `json:"Code"`
				Name string `json:"Name"`
			} `json:"Kind"`
		} `json:"Category"`
		FirstHeight struct {
			ArrivalTime string `json:"ArrivalTime"`
			Condition   string `json:"Condition"`
		} `json:"FirstHeight"`
		MaxHeight struct {
			TsunamiHeight json.RawMessage `json:"TsunamiHeight"`
			Condition     string          `json:"Condition"`
		} `json:"MaxHeight"`
	}
	var items []item
	if it := raw.Body.Tsunami.Forecast.Item; len(it) > 0 && it[0] == '{' {
		var one item
		if err := json.Unmarshal(it, &one); err != nil {
			return TsunamiReport{}, fmt.Errorf("tsunami report %s: %w", e.ID, err)
		}
		items = []item{one}
	} else if len(it) > 0 && string(it) != "null" {
		if err := json.Unmarshal(it, &items); err != nil {
			return TsunamiReport{}, fmt.Errorf("tsunami report %s: %w", e.ID, err)
		}
	}
	r := TsunamiReport{Entry: e, Headline: strings.TrimSpace(raw.Head.Headline.Text)}
	for _, it := range items {
		a := TsunamiArea{Code: it.Area.Code, Name: it.Area.Name, Kind: it.Category.Kind.Name, KindCode: it.Category.Kind.Code,
			Arrival: it.FirstHeight.Condition, Height: heightText(it.MaxHeight.TsunamiHeight)}
		if t, err := time.Parse(time.RFC3339, it.FirstHeight.ArrivalTime); err == nil {
			t = t.In(JST)
			a.Arrival = fmt.Sprintf("%d時%02d分", t.Hour(), t.Minute())
		}
		if a.Height == "" {
			a.Height = it.MaxHeight.Condition
		}
		if a.Name == "" {
			continue
		}
		r.Areas = append(r.Areas, a)
	}
	slices.SortStableFunc(r.Areas, func(a, b TsunamiArea) int { return b.Level() - a.Level() })
	return r, nil
}

// heightText is a TsunamiHeight: a string, or an object with a description.
func heightText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Description string `json:"description"`
		Value       string `json:"value"`
	}
	if json.Unmarshal(raw, &o) == nil {
		if o.Description != "" {
			return o.Description
		}
		if o.Value != "" {
			return o.Value + "m"
		}
	}
	return ""
}

// tsunamiPrefs maps coastal areas whose name does not start with their
// prefecture's to the prefectures (two-digit codes) they belong to.
var tsunamiPrefs = map[string][]string{
	"オホーツク海沿岸":   {"01"},
	"陸奥湾":        {"02"},
	"東京湾内湾":      {"12", "13", "14"},
	"伊豆諸島":       {"13"},
	"小笠原諸島":      {"13"},
	"相模湾・三浦半島":   {"14"},
	"伊勢・三河湾":     {"23", "24"},
	"淡路島南部":      {"28"},
	"有明・八代海":     {"41", "42", "43"},
	"大隅半島東部":     {"46"},
	"種子島・屋久島地方":  {"46"},
	"奄美群島・トカラ列島": {"46"},
	"沖縄本島地方":     {"47"},
	"大東島地方":      {"47"},
	"宮古島・八重山地方":  {"47"},
	"瀬戸内海沿岸":     {"33", "34", "35", "37", "38"},
	"上川・留萌地方":    {"01"},
	"北海道太平洋沿岸東部": {"01"},
	"北海道太平洋沿岸中部": {"01"},
	"北海道太平洋沿岸西部": {"01"},
	"北海道日本海沿岸北部": {"01"},
	"北海道日本海沿岸南部": {"01"},
	"大阪府":        {"27"},
	"京都府":        {"26"},
}

// InAreas reports whether the area is on the coast of one of the
// prefectures areas (two-digit codes); empty areas is all of Japan.
func (a TsunamiArea) InAreas(areas []string) bool {
	if len(areas) == 0 {
		return true
	}
	if ps, ok := tsunamiPrefs[a.Name]; ok {
		for _, p := range ps {
			if slices.Contains(areas, p) {
				return true
			}
		}
		return false
	}
	for _, code := range areas {
		name := PrefIntensity{Code: code}.Name()
		short := name
		for _, suffix := range []string{"都", "府", "県"} {
			short = strings.TrimSuffix(short, suffix)
		}
		if strings.HasPrefix(a.Name, name) || (short != "東京" && strings.HasPrefix(a.Name, short)) {
			return true
		}
	}
	return false
}
