package reminder

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Reading is what a user's words say about when: the tools compare it with
// the model's due_at.
type Reading struct {
	// At is the time meant; when only a day was named (HasClock false) it
	// is that day at 00:00.
	At time.Time
	// HasDate: a day was named (明日, 来週の金曜, 3月5日, tomorrow, 2日後).
	HasDate bool
	// HasClock: the words fix the minute (9時半, at 3pm, 30分後).
	HasClock bool
	// Relative: measured from when the user spoke (30分後, in 2 hours).
	Relative bool
	// Period is the part of the day named (朝, 夜, 深夜, pm, …), if any.
	Period string
}

// Periods of the day.
const (
	periodAM        = "am"        // 午前, am
	periodPM        = "pm"        // 午後, pm
	periodMorning   = "morning"   // 朝, 今朝
	periodNoon      = "noon"      // 昼
	periodEvening   = "evening"   // 夕方
	periodNight     = "night"     // 夜, 晩, 今夜, tonight
	periodLateNight = "latenight" // 深夜, 夜中
)

var (
	reRelJa = regexp.MustCompile(`(?:(\d+)\s*週間)?\s*(?:(\d+)\s*日)?\s*(?:(\d+)\s*時間(半)?)?\s*(?:(\d+)\s*分(半)?)?\s*(?:(\d+)\s*秒)?\s*(?:後|経ったら|たったら)`)
	reRelEn = regexp.MustCompile(`\bin\s+(an?|one|half an?|\d+(?:\.\d+)?)\s*(weeks?|days?|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b(?:\s*(?:and\s+)?(\d+)\s*(minutes?|mins?|m)\b)?`)

	// reYearDay is a day with its year: 2027年3月3日, 2027/3/3, 来年の3月3日.
	reYearDay  = regexp.MustCompile(`(?:(\d{4})\s*[年/.\-]\s*|(再来年|来年|今年)\s*の?\s*)(\d{1,2})\s*(?:月|/|\.|-)\s*(\d{1,2})\s*日?`)
	rePastDay  = regexp.MustCompile(`((?:一|1)昨日|おととい|昨日|きのう)\s*の?\s*(?:\d|午前|午後|朝|昼|夕方|夜|晩|深夜|正午)|(昨夜|昨晩)|(day before yesterday|yesterday)\s*(?:at\b|\d|morning|afternoon|evening|night|noon)`)
	reMonthDay = regexp.MustCompile(`(\d{1,2})\s*月\s*(\d{1,2})\s*日`)
	reSlashDay = regexp.MustCompile(`(?:^|[^\d/:])(\d{1,2})/(\d{1,2})(?:[^\d/]|$)`)
	reWeekday  = regexp.MustCompile(`(来週|再来週|今週)?\s*の?\s*([月火水木金土日])\s*曜`)
	reWeekEn   = regexp.MustCompile(`\b(next\s+|this\s+|on\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`)

	reAM      = regexp.MustCompile(`\d\s*(am|a\.m\.)`)
	rePM      = regexp.MustCompile(`\d\s*(pm|p\.m\.)`)
	reClockJa = regexp.MustCompile(`(\d{1,2})\s*時\s*(半|(\d{1,2})\s*分)?`)
	reClockHM = regexp.MustCompile(`(?:^|[^\d:])(\d{1,2}):(\d{2})(?:\s*(am|pm|a\.m\.|p\.m\.))?`)
	reClockEn = regexp.MustCompile(`\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)|\bat\s+(\d{1,2})(?::(\d{2}))?\b`)
)

var weekdaysJa = map[string]time.Weekday{
	"日": time.Sunday, "月": time.Monday, "火": time.Tuesday, "水": time.Wednesday,
	"木": time.Thursday, "金": time.Friday, "土": time.Saturday,
}

var weekdaysEn = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

// ParseWhen reads the time a message speaks of, relative to now (in the
// user's time zone). ok is false when it names no time, or more than one
// time of day. It is deliberately literal: a bare 「9時」 is the next 09:00,
// 深夜2時 the coming night's 02:00.
func ParseWhen(text string, now time.Time) (r Reading, ok bool) {
	s := strings.ToLower(normalize(text))

	for _, m := range reRelJa.FindAllStringSubmatch(s, -1) {
		if strings.TrimSpace(strings.TrimRight(m[0], "後経ったら")) == "" {
			continue // その後: no amount
		}
		d, days := relJa(m)
		if d > 0 {
			return Reading{At: now.Add(d + time.Duration(days)*24*time.Hour), HasClock: true, HasDate: days > 0, Relative: true}, true
		}
		if days > 0 {
			// 3日後 (の9時): a day; a time of day may follow.
			s = strings.Replace(s, m[0], " ", 1)
			return absolute(s, now, dateOf(now).AddDate(0, 0, days), true)
		}
		break
	}
	if m := reRelEn.FindStringSubmatch(s); m != nil {
		if d := relEn(m); d > 0 {
			return Reading{At: now.Add(d), HasClock: true, HasDate: d >= 24*time.Hour, Relative: true}, true
		}
	}
	return absolute(s, now, time.Time{}, false)
}

// absolute reads a named day and a time of day; day is already set when a
// relative day (3日後) was found.
func absolute(s string, now time.Time, day time.Time, hasDay bool) (Reading, bool) {
	today := dateOf(now)
	period := findPeriod(s)
	weekday := false
	if !hasDay {
		day, hasDay, weekday = findDay(s, now, today)
	}
	if !hasDay && (strings.Contains(s, "今夜") || strings.Contains(s, "今晩") || strings.Contains(s, "tonight")) {
		day, hasDay = today, true
	}

	h, m, found, ok := findClock(s)
	if !ok {
		return Reading{}, false
	}
	if !found {
		if !hasDay {
			return Reading{}, false
		}
		return Reading{At: day, HasDate: true, Period: period}, true
	}

	nextDay := false
	switch period {
	case periodPM, periodEvening:
		if h < 12 {
			h += 12
		}
	case periodAM:
		if h == 12 {
			h = 0
		}
	case periodNoon:
		if h >= 1 && h <= 5 {
			h += 12
		}
	case periodNight:
		switch {
		case h >= 6 && h < 12:
			h += 12
		case h == 12 || h == 24:
			h, nextDay = 0, true
		case h < 6:
			nextDay = true
		}
	case periodLateNight:
		switch {
		case h == 12 || h == 24:
			h, nextDay = 0, true
		case h < 6:
			nextDay = true
		case h >= 6 && h < 12:
			h += 12
		}
	}
	if h == 24 {
		h, nextDay = 0, true
	}
	if h > 23 || m > 59 {
		return Reading{}, false
	}

	var at time.Time
	switch {
	case hasDay:
		if nextDay {
			// 明日の深夜2時: the night after that day.
			day = day.AddDate(0, 0, 1)
		}
		at = time.Date(day.Year(), day.Month(), day.Day(), h, m, 0, 0, now.Location())
		if weekday && !at.After(now) {
			at = at.AddDate(0, 0, 7)
		}
	default:
		// No day named: the next time the clock shows h:m.
		at = time.Date(today.Year(), today.Month(), today.Day(), h, m, 0, 0, now.Location())
		if !at.After(now) {
			at = at.AddDate(0, 0, 1)
		}
	}
	return Reading{At: at, HasDate: hasDay, HasClock: true, Period: period}, true
}

func findPeriod(s string) string {
	switch {
	case strings.Contains(s, "深夜") || strings.Contains(s, "夜中"):
		return periodLateNight
	case strings.Contains(s, "午前") || reAM.MatchString(s):
		return periodAM
	case strings.Contains(s, "午後") || rePM.MatchString(s):
		return periodPM
	case strings.Contains(s, "夕方"):
		return periodEvening
	case strings.Contains(s, "夜") || strings.Contains(s, "晩") || strings.Contains(s, "tonight"):
		return periodNight
	case strings.Contains(s, "朝"):
		return periodMorning
	case strings.Contains(s, "昼") || strings.Contains(s, "noon"):
		return periodNoon
	}
	return ""
}

// findDay finds a named day; weekday reports a bare weekday (the coming one).
func findDay(s string, now, today time.Time) (day time.Time, ok, weekday bool) {
	switch {
	case strings.Contains(s, "明後日") || strings.Contains(s, "あさって") || strings.Contains(s, "day after tomorrow"):
		return today.AddDate(0, 0, 2), true, false
	case strings.Contains(s, "明日") || strings.Contains(s, "あした") || strings.Contains(s, "あす") ||
		strings.Contains(s, "明朝") || strings.Contains(s, "明晩") || strings.Contains(s, "tomorrow"):
		return today.AddDate(0, 0, 1), true, false
	case strings.Contains(s, "今日") || strings.Contains(s, "きょう") || strings.Contains(s, "本日") ||
		strings.Contains(s, "今朝") || strings.Contains(s, "today"):
		return today, true, false
	}
	// A day gone by is read only when a time of that day follows it
	// (昨日の9時, 昨日の夜): 「昨日の件、9時に」 speaks of the day, not the
	// time. The callers then say the time has passed instead of moving it
	// to tomorrow.
	if m := rePastDay.FindStringSubmatch(s); m != nil {
		switch m[1] + m[3] {
		case "一昨日", "1昨日", "おととい", "day before yesterday":
			return today.AddDate(0, 0, -2), true, false
		}
		return today.AddDate(0, 0, -1), true, false
	}
	if m := reWeekday.FindStringSubmatch(s); m != nil {
		wd := weekdaysJa[m[2]]
		// Weeks start on Monday.
		monday := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
		offset := (int(wd) + 6) % 7
		switch m[1] {
		case "来週":
			return monday.AddDate(0, 0, 7+offset), true, false
		case "再来週":
			return monday.AddDate(0, 0, 14+offset), true, false
		case "今週":
			return monday.AddDate(0, 0, offset), true, false
		}
		return today.AddDate(0, 0, (int(wd)-int(today.Weekday())+7)%7), true, true
	}
	if m := reWeekEn.FindStringSubmatch(s); m != nil {
		wd := weekdaysEn[m[2]]
		ahead := (int(wd) - int(today.Weekday()) + 7) % 7
		if strings.HasPrefix(m[1], "next") && ahead == 0 {
			ahead = 7
		}
		return today.AddDate(0, 0, ahead), true, ahead == 0
	}
	if m := reYearDay.FindStringSubmatch(s); m != nil {
		return yearMonthDay(m[1], m[2], m[3], m[4], today)
	}
	if m := reMonthDay.FindStringSubmatch(s); m != nil {
		return monthDay(m[1], m[2], today)
	}
	if m := reSlashDay.FindStringSubmatch(s); m != nil {
		return monthDay(m[1], m[2], today)
	}
	return time.Time{}, false, false
}

func monthDay(ms, ds string, today time.Time) (time.Time, bool, bool) {
	mo, _ := strconv.Atoi(ms)
	d, _ := strconv.Atoi(ds)
	y := today.Year()
	if time.Date(y, time.Month(mo), d, 0, 0, 0, 0, today.Location()).Before(today) {
		y++ // a day gone by this year is next year's
	}
	t, ok := calendarDay(y, mo, d, today.Location())
	return t, ok, false
}

// yearMonthDay is a day said with its year (a number, or 今年, 来年,
// 再来年); unlike monthDay, a day before today stays in the past.
func yearMonthDay(ys, rel, ms, ds string, today time.Time) (time.Time, bool, bool) {
	y, _ := strconv.Atoi(ys)
	switch rel {
	case "今年":
		y = today.Year()
	case "来年":
		y = today.Year() + 1
	case "再来年":
		y = today.Year() + 2
	}
	mo, _ := strconv.Atoi(ms)
	d, _ := strconv.Atoi(ds)
	t, ok := calendarDay(y, mo, d, today.Location())
	return t, ok, false
}

// calendarDay is y-mo-d at 00:00 in loc; false for a day the calendar does
// not have (13月, 2月30日).
func calendarDay(y, mo, d int, loc *time.Location) (time.Time, bool) {
	t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, loc)
	if mo < 1 || mo > 12 || d < 1 || t.Day() != d {
		return time.Time{}, false
	}
	return t, true
}

// findClock finds one time of day. found is false when there is none; ok
// is false when there are several different ones.
func findClock(s string) (h, m int, found, ok bool) {
	type hm struct{ h, m int }
	var all []hm
	for _, loc := range reClockJa.FindAllStringSubmatchIndex(s, -1) {
		end := loc[1]
		if loc[4] < 0 && strings.HasPrefix(s[end:], "間") {
			continue // N時間: a duration, not a time of day
		}
		hh, _ := strconv.Atoi(s[loc[2]:loc[3]])
		mm := 0
		if loc[4] >= 0 {
			if s[loc[4]:loc[5]] == "半" {
				mm = 30
			} else {
				mm, _ = strconv.Atoi(s[loc[6]:loc[7]])
			}
		}
		all = append(all, hm{hh, mm})
	}
	for _, m := range reClockHM.FindAllStringSubmatch(s, -1) {
		hh, _ := strconv.Atoi(m[1])
		mm, _ := strconv.Atoi(m[2])
		all = append(all, hm{ampm(hh, m[3]), mm})
	}
	for _, m := range reClockEn.FindAllStringSubmatch(s, -1) {
		if m[1] != "" {
			hh, _ := strconv.Atoi(m[1])
			mm, _ := strconv.Atoi(m[2])
			all = append(all, hm{ampm(hh, m[3]), mm})
		} else {
			hh, _ := strconv.Atoi(m[4])
			mm, _ := strconv.Atoi(m[5])
			all = append(all, hm{hh, mm})
		}
	}
	switch {
	case strings.Contains(s, "正午") || strings.Contains(s, "noon"):
		all = append(all, hm{12, 0})
	case strings.Contains(s, "midnight"):
		all = append(all, hm{24, 0})
	}
	if len(all) == 0 {
		return 0, 0, false, true
	}
	for _, x := range all[1:] {
		if x != all[0] {
			return 0, 0, true, false
		}
	}
	return all[0].h, all[0].m, true, true
}

func ampm(h int, suffix string) int {
	switch {
	case strings.HasPrefix(suffix, "p") && h < 12:
		return h + 12
	case strings.HasPrefix(suffix, "a") && h == 12:
		return 0
	}
	return h
}

func relJa(m []string) (d time.Duration, days int) {
	n := func(i int) int {
		v, _ := strconv.Atoi(m[i])
		return v
	}
	days = n(1)*7 + n(2)
	d = time.Duration(n(3))*time.Hour + time.Duration(n(5))*time.Minute + time.Duration(n(7))*time.Second
	if m[4] != "" {
		d += 30 * time.Minute
	}
	if m[6] != "" {
		d += 30 * time.Second
	}
	return d, days
}

func relEn(m []string) time.Duration {
	var n float64
	switch m[1] {
	case "a", "an", "one":
		n = 1
	case "half a", "half an":
		n = 0.5
	default:
		n, _ = strconv.ParseFloat(m[1], 64)
	}
	var unit time.Duration
	switch u := m[2]; {
	case strings.HasPrefix(u, "w"):
		unit = 7 * 24 * time.Hour
	case strings.HasPrefix(u, "d"):
		unit = 24 * time.Hour
	case strings.HasPrefix(u, "h"):
		unit = time.Hour
	case strings.HasPrefix(u, "m"):
		unit = time.Minute
	default:
		unit = time.Second
	}
	d := time.Duration(n * float64(unit))
	if m[3] != "" {
		mm, _ := strconv.Atoi(m[3])
		d += time.Duration(mm) * time.Minute
	}
	return d
}

func dateOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// normalize folds full-width digits and punctuation and writes kanji
// numerals (一〜九十九) as digits.
func normalize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '０' && r <= '９':
			r = '0' + (r - '０')
		case r == '：':
			r = ':'
		case r == '／':
			r = '/'
		case r == '　':
			r = ' '
		}
		b.WriteRune(r)
	}
	return kanjiNumber.ReplaceAllStringFunc(b.String(), func(k string) string {
		v, tens := 0, 0
		for _, r := range k {
			if r == '十' {
				tens = max(v, 1)
				v = 0
				continue
			}
			v = v*10 + kanjiDigits[r]
		}
		return strconv.Itoa(tens*10 + v)
	})
}

var kanjiDigits = map[rune]int{'〇': 0, '一': 1, '二': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}

var kanjiNumber = regexp.MustCompile(`[一二三四五六七八九]?十[一二三四五六七八九]?|[〇一二三四五六七八九]+`)
