package holiday

import "time"

// FirstYear and LastYear bound the years the package knows: from the
// first year of the Cabinet Office's list (1955), each period's law is
// applied, checked day by day against that list; the equinox days are the
// National Astronomical Observatory's approximation, which holds to 2099.
// Outside them Lookup reports no holiday at all.
const (
	FirstYear = 1955
	LastYear  = 2099
)

// Lookup reports whether the calendar date year-month-day is a national
// holiday in Japan, and its Japanese name ("元日", "振替休日", …).
func Lookup(year int, month time.Month, day int) (string, bool) {
	if year < FirstYear || year > LastYear {
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

type date struct {
	month time.Month
	day   int
}

// years holds each year's table, built once for the whole range: about 120
// small maps.
var years = func() map[int]map[date]string {
	m := make(map[int]map[date]string, LastYear-FirstYear+1)
	for y := FirstYear; y <= LastYear; y++ {
		m[y] = compute(y)
	}
	return m
}()

func yearTable(year int) map[date]string { return years[year] }

// Dates the law changed on.
var (
	// 振替休日 from 12 April 1973: a holiday on a Sunday makes the next day
	// one; from 2007 the next day that is not a holiday.
	substitutesFrom = time.Date(1973, time.April, 12, 0, 0, 0, 0, time.UTC)
	// 国民の休日 from 27 December 1985: a day between two holidays.
	betweenFrom = time.Date(1985, time.December, 27, 0, 0, 0, 0, time.UTC)
)

// compute applies the law of y's time to one year: the holidays
// (国民の祝日, and the days special laws made days off), then 振替休日,
// then 国民の休日.
func compute(y int) map[date]string {
	h := holidays(y)
	days := make(map[date]string, len(h)+4)
	for d, name := range h {
		days[d] = name
	}
	at := func(d date) time.Time { return time.Date(y, d.month, d.day, 0, 0, 0, 0, time.UTC) }
	on := func(t time.Time) date { return date{t.Month(), t.Day()} }

	for d := range h {
		t := at(d)
		if t.Weekday() != time.Sunday || t.Before(substitutesFrom) {
			continue
		}
		next := t.AddDate(0, 0, 1)
		if y >= 2007 {
			for _, ok := h[on(next)]; ok; _, ok = h[on(next)] {
				next = next.AddDate(0, 0, 1)
			}
		}
		// Before 2007 only the Monday: when it is a holiday itself,
		// nothing is added.
		if _, ok := h[on(next)]; !ok && next.Year() == y {
			days[on(next)] = "振替休日"
		}
	}

	for d := range h {
		t := at(d).AddDate(0, 0, 1)
		if t.Before(betweenFrom) || t.Year() != y {
			continue
		}
		if _, ok := days[on(t)]; ok {
			continue // a holiday, or a 振替休日, which comes first
		}
		_, after := h[on(t.AddDate(0, 0, 1))]
		// Before 2007 a Sunday stayed a Sunday.
		if after && (y >= 2007 || t.Weekday() != time.Sunday) {
			days[on(t)] = "国民の休日"
		}
	}
	return days
}

// holidays is y's 国民の祝日, by the law of its time, and the days special
// laws made holidays.
func holidays(y int) map[date]string {
	h := map[date]string{}
	add := func(m time.Month, d int, name string) { h[date{m, d}] = name }

	add(time.January, 1, "元日")
	if y >= 2000 {
		add(time.January, nthMonday(y, time.January, 2), "成人の日")
	} else {
		add(time.January, 15, "成人の日")
	}
	if y >= 1967 {
		add(time.February, 11, "建国記念の日")
	}
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
		switch {
		case y >= 2000:
			add(time.October, nthMonday(y, time.October, 2), sports)
		case y >= 1966:
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
	switch y {
	case 1959:
		add(time.April, 10, "皇太子明仁親王の結婚の儀")
	case 1989:
		add(time.February, 24, "昭和天皇の大喪の礼")
	case 1990:
		add(time.November, 12, "即位礼正殿の儀")
	case 1993:
		add(time.June, 9, "皇太子徳仁親王の結婚の儀")
	case 2019:
		// Made holidays for the year by a law of their own, so the days
		// between them and their neighbours were 国民の休日.
		add(time.May, 1, "即位の日")
		add(time.October, 22, "即位礼正殿の儀")
	}
	return h
}

// nthMonday is the day of month of the nth Monday of month in y.
func nthMonday(y int, month time.Month, n int) int {
	first := time.Date(y, month, 1, 0, 0, 0, 0, time.UTC).Weekday()
	offset := (int(time.Monday) - int(first) + 7) % 7
	return 1 + offset + 7*(n-1)
}

// springEquinox and autumnEquinox are the days of 春分の日 and 秋分の日 by
// the approximation the National Astronomical Observatory's dates follow,
// in its form for 1900–1979 and for 1980–2099. (y-1983)/4 rounds toward
// zero: so the Cabinet Office's dates of 1955–1979 come out.
func springEquinox(y int) int {
	if y < 1980 {
		return int(20.8357 + 0.242194*float64(y-1980) - float64((y-1983)/4))
	}
	return int(20.8431+0.242194*float64(y-1980)) - (y-1980)/4
}

func autumnEquinox(y int) int {
	if y < 1980 {
		return int(23.2588 + 0.242194*float64(y-1980) - float64((y-1983)/4))
	}
	return int(23.2488+0.242194*float64(y-1980)) - (y-1980)/4
}
