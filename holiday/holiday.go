package holiday

import (
	"sort"
	"time"
)

// Holiday is one national holiday.
type Holiday struct {
	Date time.Time // midnight UTC of the day, as a calendar date
	Name string
}

// The years the rules here are right for (the equinox approximation holds
// from 1980 to 2099).
const (
	firstYear = 1980
	lastYear  = 2099
)

// Lookup reports whether the calendar date year-month-day is a national
// holiday in Japan, and its Japanese name ("元日", "振替休日", …).
func Lookup(year int, month time.Month, day int) (string, bool) {
	if year < firstYear || year > lastYear {
		return "", false
	}
	name, ok := yearTable(year)[date{month, day}]
	return name, ok
}

// Is reports whether t's calendar date, read in t's own location, is a
// national holiday.
func Is(t time.Time) bool {
	_, ok := Lookup(t.Date())
	return ok
}

// Name is the name of the holiday on t's calendar date in t's location, or
// "" when it is not one.
func Name(t time.Time) string {
	name, _ := Lookup(t.Date())
	return name
}

// InYear lists the national holidays of year in date order.
func InYear(year int) []Holiday {
	if year < firstYear || year > lastYear {
		return nil
	}
	var out []Holiday
	for d, name := range yearTable(year) {
		out = append(out, Holiday{Date: time.Date(year, d.month, d.day, 0, 0, 0, 0, time.UTC), Name: name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Date.Before(out[j].Date) })
	return out
}

type date struct {
	month time.Month
	day   int
}

// years holds each year's table, built once for the whole range: about 120
// small maps.
var years = func() map[int]map[date]string {
	m := make(map[int]map[date]string, lastYear-firstYear+1)
	for y := firstYear; y <= lastYear; y++ {
		m[y] = compute(y)
	}
	return m
}()

func yearTable(year int) map[date]string { return years[year] }

// compute applies the law to one year.
func compute(y int) map[date]string {
	h := map[date]string{}
	add := func(m time.Month, d int, name string) { h[date{m, d}] = name }

	add(time.January, 1, "元日")
	if y >= 2000 {
		add(time.January, nthMonday(y, time.January, 2), "成人の日")
	} else {
		add(time.January, 15, "成人の日")
	}
	add(time.February, 11, "建国記念の日")
	switch {
	case y >= 2020:
		add(time.February, 23, "天皇誕生日")
	case y >= 1989 && y <= 2018:
		add(time.December, 23, "天皇誕生日")
	case y < 1989:
		add(time.April, 29, "天皇誕生日")
	}
	add(time.March, springEquinox(y), "春分の日")
	switch {
	case y >= 2007:
		add(time.April, 29, "昭和の日")
	case y >= 1989:
		add(time.April, 29, "みどりの日")
	}
	add(time.May, 3, "憲法記念日")
	if y >= 2007 {
		add(time.May, 4, "みどりの日")
	}
	add(time.May, 5, "こどもの日")
	switch y {
	case 2020:
		add(time.July, 23, "海の日")
		add(time.July, 24, "スポーツの日")
		add(time.August, 10, "山の日")
	case 2021:
		add(time.July, 22, "海の日")
		add(time.July, 23, "スポーツの日")
		add(time.August, 8, "山の日")
	default:
		switch {
		case y >= 2003:
			add(time.July, nthMonday(y, time.July, 3), "海の日")
		case y >= 1996:
			add(time.July, 20, "海の日")
		}
		if y >= 2016 {
			add(time.August, 11, "山の日")
		}
		sports := "体育の日"
		if y >= 2020 {
			sports = "スポーツの日"
		}
		if y >= 2000 {
			add(time.October, nthMonday(y, time.October, 2), sports)
		} else {
			add(time.October, 10, sports)
		}
	}
	switch {
	case y >= 2003:
		add(time.September, nthMonday(y, time.September, 3), "敬老の日")
	case y >= 1966:
		add(time.September, 15, "敬老の日")
	}
	add(time.September, autumnEquinox(y), "秋分の日")
	add(time.November, 3, "文化の日")
	add(time.November, 23, "勤労感謝の日")
	if y == 2019 {
		add(time.May, 1, "即位の日")
		add(time.October, 22, "即位礼正殿の儀")
	}
	if y == 1989 {
		add(time.February, 24, "昭和天皇の大喪の礼")
	}
	if y == 1990 {
		add(time.November, 12, "即位礼正殿の儀")
	}
	if y == 1993 {
		add(time.June, 9, "皇太子徳仁親王の結婚の儀")
	}

	// 国民の休日: a day between two holidays that is not one itself (from
	// 1986; a Sunday is a day off anyway).
	if y >= 1986 {
		var between []date
		for d := range h {
			t := time.Date(y, d.month, d.day+2, 0, 0, 0, 0, time.UTC)
			mid := time.Date(y, d.month, d.day+1, 0, 0, 0, 0, time.UTC)
			_, next := h[date{t.Month(), t.Day()}]
			_, taken := h[date{mid.Month(), mid.Day()}]
			if next && !taken && t.Year() == y && mid.Weekday() != time.Sunday {
				between = append(between, date{mid.Month(), mid.Day()})
			}
		}
		for _, d := range between {
			h[d] = "国民の休日"
		}
	}
	substitutes(y, h)
	return h
}

// substitutes adds 振替休日 (from 1973): a holiday on a Sunday makes the
// next day that is not a holiday one.
func substitutes(y int, h map[date]string) {
	var sundays []time.Time
	for d := range h {
		t := time.Date(y, d.month, d.day, 0, 0, 0, 0, time.UTC)
		if t.Weekday() == time.Sunday {
			sundays = append(sundays, t)
		}
	}
	for _, t := range sundays {
		for {
			t = t.AddDate(0, 0, 1)
			if _, ok := h[date{t.Month(), t.Day()}]; !ok || t.Year() != y {
				break
			}
		}
		if t.Year() == y {
			h[date{t.Month(), t.Day()}] = "振替休日"
		}
	}
}

// nthMonday is the day of month of the nth Monday of month in y.
func nthMonday(y int, month time.Month, n int) int {
	first := time.Date(y, month, 1, 0, 0, 0, 0, time.UTC).Weekday()
	offset := (int(time.Monday) - int(first) + 7) % 7
	return 1 + offset + 7*(n-1)
}

// springEquinox and autumnEquinox are the days of 春分の日 and 秋分の日 by
// the approximation the National Astronomical Observatory's dates follow
// for 1980–2099.
func springEquinox(y int) int {
	return int(20.8431+0.242194*float64(y-1980)) - (y-1980)/4
}

func autumnEquinox(y int) int {
	return int(23.2488+0.242194*float64(y-1980)) - (y-1980)/4
}
