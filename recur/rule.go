package recur

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Freq is the unit a rule repeats in, RFC 5545's FREQ in lower case.
type Freq string

// The frequencies a rule may have (RFC 5545's SECONDLY is not offered).
const (
	Minutely Freq = "minutely"
	Hourly   Freq = "hourly"
	Daily    Freq = "daily"
	Weekly   Freq = "weekly"
	Monthly  Freq = "monthly"
	Yearly   Freq = "yearly"
)

// Rule is a repeating schedule, read from words by Parse or proposed by the
// model, stored as RRULE text (see RRULE and FromRRULE).
type Rule struct {
	// Freq is the unit: every minute, hour, day, week, month or year.
	Freq Freq
	// Interval is every how many units; 0 and 1 both mean every one
	// (隔週 is Weekly with 2).
	Interval int
	// Weekdays are the days of a weekly rule (none: the weekday of Start),
	// or, for a monthly rule with Nth, the one day of the week.
	Weekdays []time.Weekday
	// MonthDays are the days of a monthly rule, 1 to 31, with -1 for the
	// last day of the month (毎月末); a month without the day is passed
	// over, as RFC 5545 says. A yearly rule has exactly one.
	MonthDays []int
	// Nth picks the week of a monthly rule's weekday: 1 to 5, or -1 for
	// the last (最終金曜); 0 when the rule names days of the month.
	Nth int
	// Month is a yearly rule's month; MonthDays[0] is its day.
	Month time.Month
	// Hour and Minute are the wall-clock time in the rule's zone; it stays
	// the same across daylight saving changes. For hourly and minutely
	// rules they are where the count starts on the first day (0:00 unless
	// said), so 毎時15分 is Hourly with Minute 15.
	Hour, Minute int
	// Start is the first day the rule may fire, midnight in the rule's
	// zone; zero means from now. A stored rule always has one (Anchor):
	// it fixes which weeks 隔週 means.
	Start time.Time
	// Until is the last day it may fire, inclusive, midnight in the rule's
	// zone (3月まで: March 31); zero means no end.
	Until time.Time
	// Count is how many occurrences at most (10回); 0 means no limit. A
	// holiday passed over still counts (see Schedule.Next).
	Count int
	// SkipHolidays passes over Japan's national holidays (祝日は除く);
	// 平日 implies it.
	SkipHolidays bool
}

// Limits on what a rule may ask for.
const (
	// MinInterval is the shortest gap between two reminders.
	MinInterval = 15 * time.Minute
	// MaxCount bounds Count, so that a counted rule, which is iterated
	// from its start, stays cheap to plan.
	MaxCount = 1000
	// maxInterval bounds Interval; nobody means every 1,000 weeks.
	maxInterval = 999
)

// every is the effective interval.
func (r Rule) every() int {
	return max(r.Interval, 1)
}

// weekdaysMask is the set of a rule's weekdays, bit d for time.Weekday d.
func weekdaysMask(days []time.Weekday) uint8 {
	var m uint8
	for _, d := range days {
		if d >= time.Sunday && d <= time.Saturday {
			m |= 1 << d
		}
	}
	return m
}

// monFri is the mask of Monday to Friday (平日).
const monFri uint8 = 1<<time.Monday | 1<<time.Tuesday | 1<<time.Wednesday | 1<<time.Thursday | 1<<time.Friday

// sortedDays is days without repeats, Monday first, as they are written
// (月・火…日, BYDAY=MO,…,SU).
func sortedDays(days []time.Weekday) []time.Weekday {
	m := weekdaysMask(days)
	var out []time.Weekday
	for i := range 7 {
		d := time.Weekday((i + 1) % 7)
		if m&(1<<d) != 0 {
			out = append(out, d)
		}
	}
	return out
}

// sortedInts is the month days without repeats, in order, the last day
// (-1) after the numbered ones.
func sortedInts(v []int) []int {
	out := slices.Clone(v)
	slices.SortFunc(out, func(a, b int) int {
		if (a < 0) != (b < 0) {
			if a < 0 {
				return 1
			}
			return -1
		}
		return a - b
	})
	return slices.Compact(out)
}

// Anchor returns r with Start set to now's day in loc when it has none:
// the form to store, since the stored text's DTSTART fixes which weeks 隔週
// means, which weekday "every 2 weeks" falls on and where Count starts. A
// counted rule starts on the day of its first occurrence after now
// instead: 毎日8時に2回 said at 14:00 must not count today's 8:00, gone.
func (r Rule) Anchor(now time.Time, loc *time.Location) Rule {
	if !r.Start.IsZero() {
		return r
	}
	r.Start = midnight(now.In(loc))
	if r.Count > 0 {
		open := r
		open.Count = 0
		if first := open.Next(now, loc, 1); len(first) > 0 {
			r.Start = midnight(first[0].In(loc))
		}
	}
	return r
}

// midnight is t's calendar day at 00:00 in t's location.
func midnight(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// sameDay reports whether a and b are the same calendar date, each read in
// its own location, or both zero.
func sameDay(a, b time.Time) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() == b.IsZero()
	}
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// Equal reports whether r and o are the same schedule: weekdays and month
// days compare as sets, Interval 0 equals 1, and Start and Until compare
// as calendar dates.
func (r Rule) Equal(o Rule) bool {
	return len(Diff(r, o)) == 0
}

// Diff names, in Japanese, each part in which a and b differ, with a's
// value then b's ("時刻: 7:00 / 8:00"), for the question that asks the
// user which one they meant. It is empty when they are Equal.
func Diff(a, b Rule) []string {
	var out []string
	add := func(what, av, bv string) {
		if av != bv {
			out = append(out, what+": "+av+" / "+bv)
		}
	}
	if a.Freq != b.Freq {
		add("頻度", everyWord(a.Freq, a.every()), everyWord(b.Freq, b.every()))
	} else {
		add("間隔", everyWord(a.Freq, a.every()), everyWord(b.Freq, b.every()))
	}
	add("曜日", daysWord(a.Weekdays), daysWord(b.Weekdays))
	add("日", monthDaysWord(a.MonthDays), monthDaysWord(b.MonthDays))
	add("第何週", nthWord(a.Nth), nthWord(b.Nth))
	add("月", monthWord(a.Month), monthWord(b.Month))
	add("時刻", clockWord(a.Hour, a.Minute), clockWord(b.Hour, b.Minute))
	if !sameDay(a.Start, b.Start) {
		add("開始", dateWord(a.Start, "今から"), dateWord(b.Start, "今から"))
	}
	if !sameDay(a.Until, b.Until) {
		add("終了", dateWord(a.Until, "なし"), dateWord(b.Until, "なし"))
	}
	add("回数", countWord(a.Count), countWord(b.Count))
	add("祝日", holidayWord(a.SkipHolidays), holidayWord(b.SkipHolidays))
	return out
}

func freqWord(f Freq) string {
	switch f {
	case Minutely:
		return "分ごと"
	case Hourly:
		return "毎時"
	case Daily:
		return "毎日"
	case Weekly:
		return "毎週"
	case Monthly:
		return "毎月"
	case Yearly:
		return "毎年"
	}
	return fmt.Sprintf("%q", string(f))
}

// everyWord says how often in f's units: 毎週, 隔週, 3週ごと.
func everyWord(f Freq, n int) string {
	unit := map[Freq]string{Minutely: "分", Hourly: "時間", Daily: "日", Weekly: "週", Monthly: "か月", Yearly: "年"}[f]
	switch {
	case f == Minutely:
		return strconv.Itoa(n) + "分ごと"
	case n == 1:
		return freqWord(f)
	case n == 2 && f != Hourly:
		return map[Freq]string{Daily: "隔日", Weekly: "隔週", Monthly: "隔月", Yearly: "隔年"}[f]
	}
	return strconv.Itoa(n) + unit + "ごと"
}

// jaDayNames are the one-letter names of the days, by time.Weekday.
var jaDayNames = [7]string{"日", "月", "火", "水", "木", "金", "土"}

func daysWord(days []time.Weekday) string {
	if len(days) == 0 {
		return "なし"
	}
	var names []string
	for _, d := range sortedDays(days) {
		names = append(names, jaDayNames[d])
	}
	return strings.Join(names, "・")
}

func monthDaysWord(days []int) string {
	if len(days) == 0 {
		return "なし"
	}
	var names []string
	for _, d := range sortedInts(days) {
		if d == -1 {
			names = append(names, "月末")
		} else {
			names = append(names, strconv.Itoa(d)+"日")
		}
	}
	return strings.Join(names, "・")
}

func nthWord(n int) string {
	switch n {
	case 0:
		return "なし"
	case -1:
		return "最終"
	}
	return "第" + strconv.Itoa(n)
}

func monthWord(m time.Month) string {
	if m == 0 {
		return "なし"
	}
	return strconv.Itoa(int(m)) + "月"
}

func clockWord(h, m int) string {
	return fmt.Sprintf("%d:%02d", h, m)
}

// dateWord writes a calendar date in full (2027年3月31日), or none when it
// is zero.
func dateWord(t time.Time, none string) string {
	if t.IsZero() {
		return none
	}
	return fmt.Sprintf("%d年%d月%d日", t.Year(), t.Month(), t.Day())
}

func countWord(n int) string {
	if n == 0 {
		return "制限なし"
	}
	return strconv.Itoa(n) + "回"
}

func holidayWord(skip bool) string {
	if skip {
		return "除く"
	}
	return "含む"
}

// check refuses fields that make no rule, whatever the date.
func (r Rule) check() error {
	switch r.Freq {
	case Minutely, Hourly, Daily, Weekly, Monthly, Yearly:
	default:
		return fmt.Errorf("繰り返しの単位 %q が分かりません（minutely, hourly, daily, weekly, monthly, yearly のどれか）", string(r.Freq))
	}
	if r.Interval < 0 || r.Interval > maxInterval {
		return fmt.Errorf("間隔 %d は使えません（1〜%d）", r.Interval, maxInterval)
	}
	if r.Freq == Minutely && time.Duration(r.every())*time.Minute < MinInterval ||
		r.Freq == Hourly && time.Duration(r.every())*time.Hour < MinInterval {
		return fmt.Errorf("%d分ごとは短すぎます: 繰り返しは%d分ごとより頻繁にはできません（例: 15分ごと、1時間ごと）",
			r.every(), int(MinInterval/time.Minute))
	}
	if r.Hour < 0 || r.Hour > 23 || r.Minute < 0 || r.Minute > 59 {
		return fmt.Errorf("時刻 %d:%02d はありません（0:00〜23:59）", r.Hour, r.Minute)
	}
	if r.Count < 0 || r.Count > MaxCount {
		return fmt.Errorf("回数 %d は使えません（1〜%d回、0 は制限なし）", r.Count, MaxCount)
	}
	for _, d := range r.Weekdays {
		if d < time.Sunday || d > time.Saturday {
			return fmt.Errorf("曜日 %d はありません", d)
		}
	}
	for _, d := range r.MonthDays {
		if d != -1 && (d < 1 || d > 31) {
			return fmt.Errorf("%d日はありません（1〜31日、または月末）", d)
		}
	}
	if len(r.Weekdays) > 0 && r.Freq != Weekly && !(r.Freq == Monthly && r.Nth != 0) {
		return errors.New("曜日は毎週の繰り返しか、毎月の第N曜日でだけ使えます（例: 毎週月曜、毎月第2火曜）")
	}
	if len(r.MonthDays) > 0 && r.Freq != Monthly && r.Freq != Yearly {
		return errors.New("日にちは毎月か毎年の繰り返しでだけ使えます（例: 毎月1日、毎年3月14日）")
	}
	if r.Nth != 0 && r.Freq != Monthly {
		return errors.New("第N曜日は毎月の繰り返しでだけ使えます（例: 毎月第2火曜）")
	}
	if r.Month != 0 && r.Freq != Yearly {
		return errors.New("月は毎年の繰り返しでだけ使えます（例: 毎年3月14日）")
	}
	switch r.Freq {
	case Monthly:
		switch {
		case r.Nth != 0 && (r.Nth < -1 || r.Nth > 5):
			return fmt.Errorf("第%d曜日はありません（第1〜第5か最終）", r.Nth)
		case r.Nth != 0 && len(r.Weekdays) != 1:
			return errors.New("第N曜日には曜日を一つだけ指定してください（例: 毎月第2火曜）")
		case r.Nth != 0 && len(r.MonthDays) > 0:
			return errors.New("毎月の日にちと第N曜日は一緒に指定できません")
		case r.Nth == 0 && len(r.MonthDays) == 0:
			return errors.New("毎月の何日か分かりません（例: 毎月1日、毎月末、毎月第2火曜）")
		}
	case Yearly:
		if r.Month < time.January || r.Month > time.December || len(r.MonthDays) != 1 {
			return errors.New("毎年の何月何日か分かりません（例: 毎年3月14日）")
		}
		if d := r.MonthDays[0]; d > daysIn(r.Month, 2024) { // 2024: a leap year
			return fmt.Errorf("%d月%d日は暦にないので、一度も来ません", r.Month, d)
		}
	}
	if !r.Start.IsZero() && !r.Until.IsZero() && midnightOf(r.Until).Before(midnightOf(r.Start)) {
		return fmt.Errorf("終わりの日（%s）が始まりの日（%s）より前です", dateWord(r.Until, ""), dateWord(r.Start, ""))
	}
	return nil
}

// midnightOf is t's calendar date as midnight UTC, to compare dates kept in
// different zones.
func midnightOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// daysIn is the length of month m in year y.
func daysIn(m time.Month, y int) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// Validate refuses a rule that should not be stored, saying why in
// Japanese: a field out of range or in the wrong kind of rule, a gap
// shorter than MinInterval, or no occurrence after now (2月30日, an end
// before the start or already past, a count used up, every day a holiday).
func (r Rule) Validate(now time.Time, loc *time.Location) error {
	if err := r.check(); err != nil {
		return err
	}
	now = now.In(loc)
	if !r.Until.IsZero() && midnightOf(r.Until).Before(midnightOf(now)) {
		return fmt.Errorf("終わりの日（%s）はもう過ぎています", dateWord(r.Until, ""))
	}
	s, err := r.Compile(loc)
	if err != nil {
		return err
	}
	if len(s.Next(now, 1)) > 0 {
		return nil
	}
	if r.SkipHolidays {
		o := r
		o.SkipHolidays = false
		if len(o.Next(now, loc, 1)) > 0 {
			return errors.New("この先の回はすべて祝日に当たるので、一度も通知されません")
		}
	}
	switch {
	case r.Count > 0 && !r.Start.IsZero() && r.Start.Before(now):
		return fmt.Errorf("%d回はもう終わっています", r.Count)
	case r.Freq == Yearly && r.MonthDays[0] > 0 && r.MonthDays[0] > daysIn(r.Month, 2023) && !r.Until.IsZero():
		return fmt.Errorf("%d月%d日は%sまでに来ません", r.Month, r.MonthDays[0], dateWord(r.Until, ""))
	case !r.Until.IsZero():
		return fmt.Errorf("%sまでに一度も来ません", dateWord(r.Until, ""))
	}
	return errors.New("この先一度も来ません")
}
