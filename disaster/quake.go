package disaster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/jma"
)

// JST is Japan's time, in which JMA reports and posts show times.
var JST = time.FixedZone("JST", 9*3600)

// Intensity is a seismic intensity (震度) on JMA's scale: 0 is none or
// unknown, 1 … 9 stand for 1, 2, 3, 4, 5-, 5+, 6-, 6+, 7.
type Intensity int

// Intensity5Lower is 震度5弱, from which a post is marked as strong shaking.
const Intensity5Lower Intensity = 5

var intensityNames = []string{"", "1", "2", "3", "4", "5弱", "5強", "6弱", "6強", "7"}

// ParseIntensity reads JMA's notation ("3", "5-", "6+", "7"; "" is 0).
func ParseIntensity(s string) (Intensity, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if i := slices.Index(jma.Intensities, s); i >= 0 {
		return Intensity(i + 1), nil
	}
	return 0, fmt.Errorf("intensity %q is not on JMA's scale", s)
}

// String is the intensity as people write it: "3", "5弱", "6強"; "" for 0.
func (i Intensity) String() string {
	if i < 0 || int(i) >= len(intensityNames) {
		return ""
	}
	return intensityNames[i]
}

// flexString is a JSON string or number ("ser" is either).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*f = ""
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("neither a string nor a number: %s", b)
	}
	*f = flexString(n.String())
	return nil
}

// PrefIntensity is the strongest shaking in one prefecture, and in its
// cities when the report names them.
type PrefIntensity struct {
	Code   string // two digits: "13"
	Max    Intensity
	Cities []CityIntensity // strongest first; empty in a 震度速報
}

// Name is the prefecture's name (東京都), or its code when unknown.
func (p PrefIntensity) Name() string {
	if n := jma.PrefectureName(p.Code); n != "" {
		return n
	}
	return p.Code
}

// CityIntensity is the shaking in one city (a seven-digit JMA city code).
type CityIntensity struct {
	Code string
	Max  Intensity
}

// QuakeReport is one entry of the earthquake list: one report on one
// earthquake.
type QuakeReport struct {
	EventID    string    // eid: the earthquake
	ID         string    // the report's own id (its detail file, else ctt)
	Title      string    // 震度速報, 震源に関する情報, 震源・震度情報, …
	InfoType   string    // 発表, 訂正, 取消
	Serial     string    // ser
	ReportedAt time.Time // rdt
	OccurredAt time.Time // at; zero when unknown
	Hypocenter string    // anm; "" in a 震度速報
	Magnitude  string    // mag, e.g. "4.6"; "" when unknown
	DepthKm    int       // from cod; -1 when unknown
	Max        Intensity // maxi; 0 when the report has none
	Prefs      []PrefIntensity
}

type rawQuake struct {
	Ctt  string     `json:"ctt"`
	Eid  string     `json:"eid"`
	Rdt  string     `json:"rdt"`
	Ttl  string     `json:"ttl"`
	Ift  string     `json:"ift"`
	Ser  flexString `json:"ser"`
	At   string     `json:"at"`
	Anm  string     `json:"anm"`
	Cod  string     `json:"cod"`
	Mag  flexString `json:"mag"`
	Maxi string     `json:"maxi"`
	Int  []struct {
		Code string `json:"code"`
		Maxi string `json:"maxi"`
		City []struct {
			Code string `json:"code"`
			Maxi string `json:"maxi"`
		} `json:"city"`
	} `json:"int"`
	JSON string `json:"json"`
}

// BadEntry is an entry of a list that could not be read: it is skipped.
type BadEntry struct {
	Key string // what names it: its detail file, its eid, or its position
	Err error
}

func (b BadEntry) Error() string { return fmt.Sprintf("entry %s: %v", b.Key, b.Err) }

// ParseQuakeList reads the earthquake list. Entries that do not read are
// returned as BadEntry and left out; only a body that is no JSON list at
// all is an error.
func ParseQuakeList(body []byte) ([]QuakeReport, []BadEntry, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		return nil, nil, fmt.Errorf("earthquake list: %w", err)
	}
	var out []QuakeReport
	var bad []BadEntry
	for i, raw := range raws {
		var r rawQuake
		err := json.Unmarshal(raw, &r)
		key := entryKey(raw, i)
		if err == nil {
			var q QuakeReport
			if q, err = r.report(); err == nil {
				out = append(out, q)
				continue
			}
		}
		bad = append(bad, BadEntry{Key: key, Err: err})
	}
	return out, bad, nil
}

// entryKey names a list entry in logs: its detail file, else its eid, else
// its position.
func entryKey(raw json.RawMessage, i int) string {
	var k struct {
		JSON any `json:"json"`
		Eid  any `json:"eid"`
	}
	_ = json.Unmarshal(raw, &k)
	for _, v := range []any{k.JSON, k.Eid} {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return fmt.Sprintf("#%d", i)
}

var codRE = regexp.MustCompile(`^[+-][0-9.]+[+-][0-9.]+(?:([+-][0-9]+))?/?$`)

func (r rawQuake) report() (QuakeReport, error) {
	q := QuakeReport{EventID: strings.TrimSpace(r.Eid), ID: r.JSON, Title: r.Ttl, InfoType: r.Ift, Serial: string(r.Ser),
		Hypocenter: strings.TrimSpace(r.Anm), Magnitude: strings.TrimSpace(string(r.Mag)), DepthKm: -1}
	if q.EventID == "" {
		return q, errors.New("no eid")
	}
	if q.ID == "" {
		q.ID = r.Ctt
	}
	if q.ID == "" {
		return q, errors.New("neither json nor ctt")
	}
	var err error
	if q.ReportedAt, err = time.Parse(time.RFC3339, r.Rdt); err != nil {
		return q, fmt.Errorf("rdt %q: %w", r.Rdt, err)
	}
	if r.At != "" {
		if q.OccurredAt, err = time.Parse(time.RFC3339, r.At); err != nil {
			return q, fmt.Errorf("at %q: %w", r.At, err)
		}
	}
	if q.Magnitude != "" {
		if _, err := strconv.ParseFloat(q.Magnitude, 64); err != nil {
			q.Magnitude = "" // JMA writes Ｍ不明 and the like: unknown
		}
	}
	if m := codRE.FindStringSubmatch(strings.TrimSpace(r.Cod)); m != nil && m[1] != "" {
		if d, err := strconv.Atoi(m[1]); err == nil {
			q.DepthKm = -d / 1000
		}
	}
	if q.Max, err = ParseIntensity(r.Maxi); err != nil {
		return q, fmt.Errorf("maxi: %w", err)
	}
	for _, p := range r.Int {
		pi := PrefIntensity{Code: strings.TrimSpace(p.Code)}
		if pi.Max, err = ParseIntensity(p.Maxi); err != nil {
			return q, fmt.Errorf("int %s: %w", p.Code, err)
		}
		for _, c := range p.City {
			ci := CityIntensity{Code: c.Code}
			if ci.Max, err = ParseIntensity(c.Maxi); err != nil {
				return q, fmt.Errorf("city %s: %w", c.Code, err)
			}
			pi.Cities = append(pi.Cities, ci)
		}
		slices.SortStableFunc(pi.Cities, func(a, b CityIntensity) int { return int(b.Max - a.Max) })
		q.Prefs = append(q.Prefs, pi)
	}
	slices.SortStableFunc(q.Prefs, func(a, b PrefIntensity) int { return int(b.Max - a.Max) })
	if q.Max == 0 {
		for _, p := range q.Prefs {
			q.Max = max(q.Max, p.Max)
		}
	}
	return q, nil
}

// Quake is one earthquake as its reports so far describe it: the
// hypocentre and magnitude from the latest report that has them, the
// intensities likewise.
type Quake struct {
	EventID    string
	Latest     QuakeReport // the newest report: its id, title and time
	OccurredAt time.Time
	Hypocenter string
	Magnitude  string
	DepthKm    int
	Max        Intensity
	Prefs      []PrefIntensity
	Cancelled  bool // the latest report is a 取消
}

// Quakes groups reports by earthquake, newest earthquake first.
func Quakes(reports []QuakeReport) []Quake {
	byEvent := map[string][]QuakeReport{}
	var order []string
	for _, r := range reports {
		if _, ok := byEvent[r.EventID]; !ok {
			order = append(order, r.EventID)
		}
		byEvent[r.EventID] = append(byEvent[r.EventID], r)
	}
	out := make([]Quake, 0, len(order))
	for _, id := range order {
		rs := byEvent[id]
		slices.SortStableFunc(rs, func(a, b QuakeReport) int { return b.ReportedAt.Compare(a.ReportedAt) })
		q := Quake{EventID: id, Latest: rs[0], DepthKm: -1, Cancelled: rs[0].InfoType == "取消"}
		for _, r := range rs {
			if q.OccurredAt.IsZero() {
				q.OccurredAt = r.OccurredAt
			}
			if q.Hypocenter == "" && r.Hypocenter != "" {
				q.Hypocenter, q.Magnitude, q.DepthKm = r.Hypocenter, r.Magnitude, r.DepthKm
			}
			if q.Prefs == nil && len(r.Prefs) > 0 {
				q.Prefs, q.Max = r.Prefs, r.Max
			}
		}
		out = append(out, q)
	}
	slices.SortStableFunc(out, func(a, b Quake) int { return b.Latest.ReportedAt.Compare(a.Latest.ReportedAt) })
	return out
}

// MaxIn is the strongest shaking in the prefectures areas (two-digit
// codes); empty areas is all of Japan.
func (q Quake) MaxIn(areas []string) Intensity {
	if len(areas) == 0 {
		return q.Max
	}
	var m Intensity
	for _, p := range q.Prefs {
		if slices.Contains(areas, p.Code) {
			m = max(m, p.Max)
		}
	}
	return m
}
