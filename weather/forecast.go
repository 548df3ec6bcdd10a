package weather

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// JST is the zone every JMA time is given in.
var JST = time.FixedZone("JST", 9*60*60)

// Value is a number JMA may leave blank: Valid is false when the JSON said "".
type Value struct {
	N     int
	Valid bool
}

// String is the number, or "—" when it is missing.
func (v Value) String() string {
	if !v.Valid {
		return "—"
	}
	return strconv.Itoa(v.N)
}

func parseValue(s string) Value {
	s = strings.TrimSpace(s)
	if s == "" {
		return Value{}
	}
	if n, err := strconv.Atoi(s); err == nil {
		return Value{N: n, Valid: true}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return Value{N: int(math.Round(f)), Valid: true}
	}
	return Value{}
}

// Block is the chance of rain in one six-hour block starting at Start.
type Block struct {
	Start   time.Time
	Percent Value
}

// End is when the block ends.
func (b Block) End() time.Time { return b.Start.Add(6 * time.Hour) }

// Day is the forecast for one JST date. Empty strings and invalid Values
// mean JMA gave nothing.
type Day struct {
	Date    time.Time // midnight JST
	Code    string    // JMA weather code, e.g. "101"
	Weather string    // JMA's sentence, e.g. "晴れ　時々　くもり"
	Wind    string
	// Tonight is set when Weather describes only the rest of the day (the
	// first day of a 17:00 report).
	Tonight bool
	Pops    []Block // rain chances of the blocks of this date still ahead, in time order
	// DaytimeRain is the highest rain chance of the 06–12 and 12–18 blocks
	// as forecast, kept when those blocks are dropped as past.
	DaytimeRain Value
	Min         Value // morning minimum, °C
	Max         Value // daytime maximum, °C
}

// Forecast is one office's short-range forecast for its first (or chosen)
// class10 area and temperature station.
type Forecast struct {
	Office     string // publishing office, e.g. 気象庁
	Area       string // class10 area name, e.g. 東京地方
	AreaCode   string
	Station    string // AMeDAS station of the temperatures, e.g. 東京
	ReportTime time.Time
	// Cycle is the report cycle the layout follows: 5, 11 or 17. An
	// unscheduled report (08:00, 20:00) follows the previous cycle.
	Cycle    int
	Days     []Day  // in date order
	Headline string // overview headline, often empty
	Overview string // overview text, paragraphs separated by blank lines
}

// eveningFrom is the JST hour from which the next daytime that matters is
// tomorrow's: too late to hang washing out today.
const eveningFrom = 15

// Target picks the day a post at now is about: the rest of today in the
// morning and early afternoon, tomorrow from 15:00 JST. When the forecast
// lacks that day (a stale report), the next day it has is used.
func (f *Forecast) Target(now time.Time) (Day, bool) {
	now = now.In(JST)
	want := midnight(now)
	if now.Hour() >= eveningFrom {
		want = want.AddDate(0, 0, 1)
	}
	for _, d := range f.Days {
		if !d.Date.Before(want) {
			return d.upcoming(now), true
		}
	}
	return Day{}, false
}

// upcoming drops the rain-chance blocks that are over at now.
func (d Day) upcoming(now time.Time) Day {
	var pops []Block
	for _, b := range d.Pops {
		if b.End().After(now) {
			pops = append(pops, b)
		}
	}
	d.Pops = pops
	return d
}

func midnight(t time.Time) time.Time {
	t = t.In(JST)
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, JST)
}

// The JSON as JMA sends it: every value a string.
type (
	jmaReport struct {
		PublishingOffice string          `json:"publishingOffice"`
		ReportDatetime   string          `json:"reportDatetime"`
		TimeSeries       []jmaTimeSeries `json:"timeSeries"`
	}
	jmaTimeSeries struct {
		TimeDefines []string  `json:"timeDefines"`
		Areas       []jmaArea `json:"areas"`
	}
	jmaArea struct {
		Area struct {
			Name string `json:"name"`
			Code string `json:"code"`
		} `json:"area"`
		WeatherCodes []string `json:"weatherCodes"`
		Weathers     []string `json:"weathers"`
		Winds        []string `json:"winds"`
		Pops         []string `json:"pops"`
		Temps        []string `json:"temps"`
	}
	jmaOverview struct {
		HeadlineText string `json:"headlineText"`
		Text         string `json:"text"`
	}
)

// Parse reads a forecast/{office}.json document. area picks the class10
// area by code; "" takes the first one (the office's main area). The
// temperature station is the first of the document.
func Parse(data []byte, area string) (*Forecast, error) {
	return parse(data, area, "", false)
}

// ParsePlace reads the document of p.Office for p's area and temperature
// station. An area or station the document does not have gives way to its
// first: the forecast names the area it is for, so the answer stays true.
// The area's name carries its office's when it is only a part (京都府 南部):
// a place asked about may be anywhere.
func ParsePlace(data []byte, p Place) (*Forecast, error) {
	f, err := parse(data, p.Area, p.Station, true)
	if err != nil {
		return nil, err
	}
	f.Area = areaLabel(p, f.Area)
	return f, nil
}

func parse(data []byte, area, station string, fallback bool) (*Forecast, error) {
	var reports []jmaReport
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("parse forecast: %w", err)
	}
	if len(reports) == 0 || len(reports[0].TimeSeries) < 3 {
		return nil, fmt.Errorf("parse forecast: want a short-range report with 3 time series")
	}
	r := reports[0]
	f := &Forecast{Office: r.PublishingOffice}
	var err error
	if f.ReportTime, err = parseTime(r.ReportDatetime); err != nil {
		return nil, fmt.Errorf("parse forecast: reportDatetime: %w", err)
	}

	days := map[string]*Day{}
	var order []string
	day := func(t time.Time) *Day {
		key := t.Format(time.DateOnly)
		if d, ok := days[key]; ok {
			return d
		}
		d := &Day{Date: midnight(t)}
		days[key] = d
		order = append(order, key)
		return d
	}

	// ts[0]: weather and wind per day.
	ts := r.TimeSeries[0]
	a, err := pickArea(ts, area)
	if err != nil && fallback {
		a, err = pickArea(ts, "")
	}
	if err != nil {
		return nil, err
	}
	f.Area, f.AreaCode = a.Area.Name, a.Area.Code
	for i, def := range ts.TimeDefines {
		t, err := parseTime(def)
		if err != nil {
			return nil, fmt.Errorf("parse forecast: weather time %q: %w", def, err)
		}
		if i == 0 {
			f.Cycle = cycleOf(t.Hour())
		}
		d := day(t)
		d.Code = at(a.WeatherCodes, i)
		d.Weather = at(a.Weathers, i)
		d.Wind = at(a.Winds, i)
		d.Tonight = i == 0 && f.Cycle == 17
	}

	// ts[1]: rain chances per six-hour block.
	ts = r.TimeSeries[1]
	if a, err = pickArea(ts, f.AreaCode); err != nil {
		return nil, err
	}
	for i, def := range ts.TimeDefines {
		t, err := parseTime(def)
		if err != nil {
			return nil, fmt.Errorf("parse forecast: rain time %q: %w", def, err)
		}
		d := day(t)
		d.Pops = append(d.Pops, Block{Start: t, Percent: parseValue(at(a.Pops, i))})
	}

	// ts[2]: temperatures by station; T00:00 is the morning minimum and
	// T09:00 the daytime maximum. The report date's own T00:00 only repeats
	// today's maximum, so it is not a minimum.
	ts = r.TimeSeries[2]
	if len(ts.Areas) > 0 {
		st := ts.Areas[0]
		for _, s := range ts.Areas {
			if station != "" && s.Area.Name == station {
				st = s
			}
		}
		f.Station = st.Area.Name
		reportDay := midnight(f.ReportTime)
		for i, def := range ts.TimeDefines {
			t, err := parseTime(def)
			if err != nil {
				return nil, fmt.Errorf("parse forecast: temperature time %q: %w", def, err)
			}
			v := parseValue(at(st.Temps, i))
			switch t.Hour() {
			case 0:
				if !midnight(t).Equal(reportDay) {
					day(t).Min = v
				}
			case 9:
				day(t).Max = v
			}
		}
	}

	for _, key := range order {
		d := days[key]
		for _, b := range d.Pops {
			h := b.Start.Hour()
			if (h == 6 || h == 12) && b.Percent.Valid && (!d.DaytimeRain.Valid || b.Percent.N > d.DaytimeRain.N) {
				d.DaytimeRain = b.Percent
			}
		}
		f.Days = append(f.Days, *d)
	}
	slices.SortStableFunc(f.Days, func(a, b Day) int { return a.Date.Compare(b.Date) })
	return f, nil
}

// ParseOverview adds an overview_forecast/{office}.json document to f.
func (f *Forecast) ParseOverview(data []byte) error {
	var o jmaOverview
	if err := json.Unmarshal(data, &o); err != nil {
		return fmt.Errorf("parse overview: %w", err)
	}
	// Paragraphs may start with an ideographic-space indent; keep it.
	f.Headline = strings.Trim(o.HeadlineText, " \r\n")
	f.Overview = strings.Trim(o.Text, " \r\n")
	return nil
}

func pickArea(ts jmaTimeSeries, code string) (jmaArea, error) {
	if len(ts.Areas) == 0 {
		return jmaArea{}, fmt.Errorf("parse forecast: a time series has no areas")
	}
	if code == "" {
		return ts.Areas[0], nil
	}
	for _, a := range ts.Areas {
		if a.Area.Code == code {
			return a, nil
		}
	}
	return jmaArea{}, fmt.Errorf("parse forecast: area %s not in the forecast", code)
}

// cycleOf maps the hour of the first weather time to the report cycle;
// unscheduled reports keep the layout of the cycle before them.
func cycleOf(hour int) int {
	switch {
	case hour >= 17:
		return 17
	case hour >= 11:
		return 11
	default:
		return 5
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return strings.TrimSpace(s[i])
	}
	return ""
}

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.In(JST), nil
}
