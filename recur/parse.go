package recur

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/width"
)

// ErrNotRepeating is Parse's answer to words that name no repetition
// (明日の9時, tomorrow at 9): the caller reads them as a one-shot time.
var ErrNotRepeating = errors.New("繰り返しの指定がありません（例: 毎週月曜の7時、毎月1日 9時）")

// Periods of the day, and the time a rule takes when the words name a
// period but no clock time.
const (
	periodMorning   = "morning"   // 朝, 毎朝, morning: 7:00
	periodNoon      = "noon"      // 昼, noon: 12:00
	periodAfternoon = "afternoon" // 午後, afternoon: 15:00
	periodEvening   = "evening"   // 夕方, 毎夕, evening: 18:00
	periodNight     = "night"     // 夜, 晩, 毎晩, night: 21:00
	periodLateNight = "latenight" // 深夜, 夜中: 0:00
	periodAM        = "am"        // 午前: 9:00
)

// defaultTimes are the times of day a period stands for; with no period
// either, a rule fires at defaultHour.
var defaultTimes = map[string][2]int{
	periodMorning:   {7, 0},
	periodNoon:      {12, 0},
	periodAfternoon: {15, 0},
	periodEvening:   {18, 0},
	periodNight:     {21, 0},
	periodLateNight: {0, 0},
	periodAM:        {9, 0},
}

// defaultHour is when a rule fires that names no time of day at all.
const defaultHour = 9

// Parse reads a repeating schedule from a user's words, Japanese or
// English, relative to now in the zone loc. It reads only what the words
// say and is deterministic; see the package doc for what it accepts. Words
// with no repetition return ErrNotRepeating; words it cannot read return
// an error saying, in Japanese, what and how to say it. Parse does not
// judge the rule (too frequent, never due): Validate does.
func Parse(words string, now time.Time, loc *time.Location) (Rule, error) {
	p := &reading{now: now.In(loc), loc: loc, s: normalize(words)}
	var err error
	if isJapanese(p.s) {
		err = p.japanese()
	} else {
		err = p.english()
	}
	if err != nil {
		return Rule{}, err
	}
	return p.rule()
}

// reading is what Parse has found so far.
type reading struct {
	now time.Time // in loc
	loc *time.Location
	s   string // what is still to read; what was read is blanked out

	units     []unit
	days      []time.Weekday
	notDays   []time.Weekday // left out: 土日は除く, except Sundays
	weekdays  bool           // 平日, weekdays: Monday to Friday, holidays skipped
	nth       int
	monthDays []int
	month     time.Month
	day       int // a yearly rule's day

	clock        bool
	hour, minute int
	period       string

	start time.Time
	until dateSpec
	count int

	skip, keepHolidays bool
}

// unit is one word that says how often: 毎週, 隔週, 30分ごと, every day.
type unit struct {
	freq   Freq
	n      int
	word   string
	period string // 毎朝 and every morning say the time of day too
	weak   bool   // a range of days (月〜金): weekly unless another unit is said
}

// dateSpec is a day as said; an end date's year is settled once the start
// is known.
type dateSpec struct {
	set   bool
	year  int // 0: the coming one
	month time.Month
	day   int       // 0: the whole month (3月まで: its last day)
	date  time.Time // set instead when the words named the day outright (来週, tomorrow)
}

// steps runs a language's readers in order, up to the first that refuses.
func steps(readers ...func() error) error {
	for _, read := range readers {
		if err := read(); err != nil {
			return err
		}
	}
	return nil
}

// holidays reads whether holidays are skipped (祝日は除く) or explicitly
// kept (祝日も, which overrides 平日's skipping).
func (p *reading) holidays(skip, keep *regexp.Regexp) {
	if p.take(skip) != nil {
		p.skip = true
	} else if p.take(keep) != nil {
		p.keepHolidays = true
	}
}

// timesPer refuses several times a period (1日2回, twice a day): a rule
// fires once, so each time is a rule of its own.
func timesPer(said, example string) error {
	return fmt.Errorf("「%s」のように一度に何回もは読めません: 時刻ごとに分けて登録してください（例: %s）", said, example)
}

// take finds re's first match in what is left, blanks it out and returns
// its groups, nil when there is none.
func (p *reading) take(re *regexp.Regexp) []string {
	loc := re.FindStringSubmatchIndex(p.s)
	if loc == nil {
		return nil
	}
	m := make([]string, len(loc)/2)
	for i := range m {
		if loc[2*i] >= 0 {
			m[i] = p.s[loc[2*i]:loc[2*i+1]]
		}
	}
	p.blank(loc[0], loc[1])
	return m
}

// blank replaces s[i:j] with one space, so that what is on either side
// does not join up.
func (p *reading) blank(i, j int) {
	p.s = p.s[:i] + " " + p.s[j:]
}

func (p *reading) addUnit(f Freq, n int, word, period string) {
	p.units = append(p.units, unit{freq: f, n: n, word: word, period: period})
}

// setClock records a time of day; a second, different one is refused,
// since a rule fires once a day.
func (p *reading) setClock(h, m int, said string) error {
	if h == 24 && m == 0 {
		h = 0
	}
	if h < 0 || h > 23 || m < 0 || m > 59 {
		return fmt.Errorf("時刻「%s」が読めません（例: 7時半、19:30、午後3時）", strings.TrimSpace(said))
	}
	if p.clock && (p.hour != h || p.minute != m) {
		return fmt.Errorf("時刻が二つあります（%d:%02d と %d:%02d）: 時刻ごとに分けて登録してください", p.hour, p.minute, h, m)
	}
	p.clock, p.hour, p.minute = true, h, m
	return nil
}

// setMinute records the minute past the hour an hourly rule fires at.
func (p *reading) setMinute(m int) error {
	if m < 0 || m > 59 {
		return fmt.Errorf("%d分は読めません（0〜59分。例: 毎時15分）", m)
	}
	p.minute = m
	return nil
}

// withPeriod moves a clock hour into the period said with it: 夜9時 is
// 21:00, 午後3時 15:00, 午前12時 0:00, 昼1時 13:00, 深夜1時 1:00.
func withPeriod(h int, period string) int {
	switch period {
	case periodAM:
		if h == 12 {
			return 0
		}
	case periodAfternoon, periodEvening:
		if h < 12 {
			return h + 12
		}
	case periodNoon:
		if h >= 1 && h <= 5 {
			return h + 12
		}
	case periodNight:
		switch {
		case h >= 5 && h < 12:
			return h + 12
		case h == 12:
			return 0
		}
	case periodLateNight:
		switch {
		case h == 12:
			return 0
		case h >= 6 && h < 12:
			return h + 12
		}
	}
	return h
}

// setDate records a day of the year that a yearly rule falls on.
func (p *reading) setDate(m, d int) error {
	if m < 1 || m > 12 {
		return fmt.Errorf("%d月はありません（例: 毎年3月14日）", m)
	}
	if d != -1 && (d < 1 || d > 31) {
		return fmt.Errorf("%d月%d日はありません（例: 毎年3月14日）", m, d)
	}
	if p.month != 0 && (p.month != time.Month(m) || p.day != d) {
		return errors.New("毎年の日付が二つあります: 日付ごとに分けて登録してください")
	}
	p.month, p.day = time.Month(m), d
	return nil
}

// addMonthDay records a day of the month.
func (p *reading) addMonthDay(d int) error {
	if d != -1 && (d < 1 || d > 31) {
		return fmt.Errorf("%d日はありません（1〜31日、または月末。例: 毎月1日 9時）", d)
	}
	p.monthDays = append(p.monthDays, d)
	return nil
}

// monthDaysBy reads a monthly rule's days: the last day (末, last day),
// and days whose number is day's first group.
func (p *reading) monthDaysBy(last, day *regexp.Regexp) error {
	if p.take(last) != nil {
		p.monthDays = append(p.monthDays, -1)
	}
	for m := p.take(day); m != nil; m = p.take(day) {
		if err := p.addMonthDay(atoi(m[1])); err != nil {
			return err
		}
	}
	return nil
}

// freq is the unit read so far, "" while it is none or unsettled.
func (p *reading) freq() Freq {
	u, err := p.mergeUnits()
	if err != nil {
		return ""
	}
	return u.freq
}

// setNth records 第N◯曜 (n 1 to 5, -1 for the last).
func (p *reading) setNth(n int, d time.Weekday) error {
	if n < -1 || n == 0 || n > 5 {
		return fmt.Errorf("第%d%s曜はありません（第1〜第5か最終。例: 毎月第2火曜）", n, jaDayNames[d])
	}
	if p.nth != 0 {
		return errors.New("第N曜日が二つあります: 一つずつ登録してください（例: 毎月第2火曜）")
	}
	p.nth, p.days = n, append(p.days, d)
	return nil
}

// resolve turns a said day into a date: without a year, the coming one
// (a month said alone: its first day for a start, its last for an end).
func (p *reading) resolve(d dateSpec, end bool) (time.Time, error) {
	if !d.date.IsZero() || !d.set {
		return d.date, nil
	}
	if d.month < 1 || d.month > 12 {
		return time.Time{}, fmt.Errorf("%d月はありません", d.month)
	}
	today := midnight(p.now)
	y := d.year
	if y == 0 {
		y = today.Year()
		// The coming one: a day already past this year is next year's.
		last := d.day
		if last == 0 {
			last = daysIn(d.month, y)
		}
		if time.Date(y, d.month, last, 0, 0, 0, 0, p.loc).Before(today) {
			y++
		}
	}
	day := d.day
	switch {
	case day == 0 && end:
		day = daysIn(d.month, y)
	case day == 0:
		day = 1
	case day < 1 || day > daysIn(d.month, y):
		return time.Time{}, fmt.Errorf("%d年%d月%d日はありません", y, d.month, day)
	}
	return time.Date(y, d.month, day, 0, 0, 0, 0, p.loc), nil
}

// rule settles what was read into a Rule.
func (p *reading) rule() (Rule, error) {
	if len(p.notDays) > 0 {
		if err := p.leaveOut(); err != nil {
			return Rule{}, err
		}
	}
	u, err := p.mergeUnits()
	if err != nil {
		return Rule{}, err
	}
	r := Rule{Freq: u.freq, Interval: u.n, Count: p.count, Start: p.start}
	if p.until.set {
		if r.Until, err = p.resolve(p.until, true); err != nil {
			return Rule{}, err
		}
		if p.until.year == 0 && p.until.date.IsZero() && !r.Start.IsZero() && r.Until.Before(r.Start) {
			// 4月から3月まで: the March after the April.
			p.until.year = r.Until.Year() + 1
			if r.Until, err = p.resolve(p.until, true); err != nil {
				return Rule{}, err
			}
		}
	}
	switch r.Freq {
	case Weekly:
		r.Weekdays = sortedDays(p.days)
	case Monthly:
		switch {
		case p.nth != 0 && len(p.days) != 1:
			return Rule{}, errors.New("第N曜日には曜日を一つだけ指定してください（例: 毎月第2火曜）")
		case p.nth != 0:
			r.Nth, r.Weekdays = p.nth, p.days
		case len(p.days) > 0:
			return Rule{}, errors.New("毎月の曜日は第何週か指定してください（例: 毎月第2火曜、毎月最終金曜）")
		case len(p.monthDays) == 0:
			return Rule{}, errors.New("毎月の何日か読めません（例: 毎月1日 9時、毎月末 21時、毎月第2火曜 19時）")
		}
		r.MonthDays = sortedInts(p.monthDays)
	case Yearly:
		if p.month == 0 {
			return Rule{}, errors.New("毎年の何月何日か読めません（例: 毎年3月14日 8時）")
		}
		r.Month, r.MonthDays = p.month, []int{p.day}
	}
	if len(p.days) > 0 && r.Freq != Weekly && r.Freq != Monthly {
		return Rule{}, fmt.Errorf("曜日と「%s」は一緒に読めません（例: 毎週月曜 9時、平日 9時）", u.word)
	}
	if p.nth != 0 && r.Freq != Monthly {
		return Rule{}, errors.New("第N曜日は毎月の繰り返しで指定してください（例: 毎月第2火曜）")
	}
	r.SkipHolidays = p.skip || p.weekdays && !p.keepHolidays

	period := p.period
	if period == "" {
		period = u.period
	}
	switch {
	case p.clock:
		r.Hour, r.Minute = p.hour, p.minute
	case r.Freq == Minutely || r.Freq == Hourly:
		r.Minute = p.minute
	case period != "":
		r.Hour, r.Minute = defaultTimes[period][0], defaultTimes[period][1]
	default:
		r.Hour = defaultHour
	}
	return r, nil
}

// leaveOut takes the days left out (毎日、土日は除く) from the days said, or
// from the whole week: what is left is a weekly rule.
func (p *reading) leaveOut() error {
	if f := p.freq(); f != Daily && f != Weekly && f != "" {
		return errors.New("曜日を除けるのは毎日か毎週の繰り返しだけです（例: 毎日7時、土日は除く）")
	}
	days := p.days
	if len(days) == 0 {
		days = []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
	}
	out := weekdaysMask(p.notDays)
	p.days = nil
	for _, d := range days {
		if out&(1<<d) == 0 {
			p.days = append(p.days, d)
		}
	}
	if len(p.days) == 0 {
		return errors.New("すべての曜日が除かれています（例: 毎日7時、土日は除く）")
	}
	if len(p.units) == 0 {
		p.addUnit(Weekly, 1, "除く", "")
	}
	return nil
}

// mergeUnits settles how often from the unit words found: 毎朝 and 毎日
// give way to a finer word beside them (平日の毎朝, 毎日 + 月曜と木曜 is
// weekly), two others conflict.
func (p *reading) mergeUnits() (unit, error) {
	if len(p.units) == 0 {
		return unit{}, ErrNotRepeating
	}
	var kept []unit
	period := ""
	for _, u := range p.units {
		if u.period != "" && period == "" {
			period = u.period
		}
		if u.weak && len(p.units) > 1 || u.freq == Daily && u.n == 1 && (len(p.units) > 1 || len(p.days) > 0) {
			continue
		}
		if len(kept) > 0 && kept[0].freq == u.freq && kept[0].n == u.n {
			continue
		}
		kept = append(kept, u)
	}
	switch {
	case len(kept) > 1:
		return unit{}, fmt.Errorf("繰り返しが二通りに読めます（「%s」と「%s」）: どちらか一つにしてください", kept[0].word, kept[1].word)
	case len(kept) == 0:
		// 毎朝 + weekdays (月曜と木曜の毎朝): weekly on those days.
		kept = []unit{{freq: Weekly, n: 1, word: p.units[0].word}}
	}
	u := kept[0]
	u.period = period
	return u, nil
}

// normalize folds full-width letters, digits and signs to ASCII, lowers
// the case and writes kanji numerals (七, 二十四, 第二) as digits.
func normalize(s string) string {
	s = strings.ToLower(width.Fold.String(s))
	s = strings.NewReplacer("\u3000", " ", "〜", "~", "～", "~", "a.m.", "am", "p.m.", "pm", "’", "'").Replace(s)
	return kanjiNumeral.ReplaceAllStringFunc(s, func(k string) string {
		total, cur := 0, 0
		for _, r := range k {
			if r == '十' {
				total += max(cur, 1) * 10
				cur = 0
				continue
			}
			cur = cur*10 + strings.IndexRune("〇一二三四五六七八九", r)/len("一")
		}
		return strconv.Itoa(total + cur)
	})
}

var kanjiNumeral = regexp.MustCompile(`[〇一二三四五六七八九十]+`)

// isJapanese reports whether s has kana or kanji: then it is read as
// Japanese, otherwise as English.
func isJapanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
