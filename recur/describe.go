package recur

import (
	"strconv"
	"strings"
	"time"
)

// Describe says the rule in short Japanese, as a reminder list shows it:
// "毎週 月・木 7:00、祝日は除く", "平日 9:00", "毎月 第2火曜 19:30",
// "隔週 土 10:00", "毎月末 21:00", "毎年 3月14日 8:00", then "、12月10日から",
// "、3月31日まで" and "、10回" when set. Dates are written without the year.
func (r Rule) Describe() string {
	n := r.every()
	clock := clockWord(r.Hour, r.Minute)
	holidaysSaid := false
	var parts []string
	switch r.Freq {
	case Minutely:
		parts = append(parts, everyWord(Minutely, n))
		if r.Hour != 0 || r.Minute != 0 {
			parts = append(parts, clock+"から")
		}
	case Hourly:
		if n == 1 {
			parts = append(parts, "毎時", strconv.Itoa(r.Minute)+"分")
		} else {
			parts = append(parts, everyWord(Hourly, n), clock+"から")
		}
	case Daily:
		parts = append(parts, everyWord(Daily, n), clock)
	case Weekly:
		switch {
		case n == 1 && weekdaysMask(r.Weekdays) == monFri && r.SkipHolidays:
			parts, holidaysSaid = append(parts, "平日"), true
		case n == 1 && weekdaysMask(r.Weekdays) == monFri:
			parts, holidaysSaid = append(parts, "平日（祝日も）"), true
		case len(r.Weekdays) > 0:
			parts = append(parts, everyWord(Weekly, n), daysWord(r.Weekdays))
		default:
			parts = append(parts, everyWord(Weekly, n))
		}
		parts = append(parts, clock)
	case Monthly:
		every := everyWord(Monthly, n)
		switch {
		case r.Nth != 0:
			parts = append(parts, every, nthWord(r.Nth)+daysWord(r.Weekdays)+"曜")
		case len(r.MonthDays) == 1 && r.MonthDays[0] == -1 && n == 1:
			parts = append(parts, "毎月末")
		default:
			parts = append(parts, every, monthDaysWord(r.MonthDays))
		}
		parts = append(parts, clock)
	case Yearly:
		day := strings.TrimPrefix(monthDaysWord(r.MonthDays), "月")
		parts = append(parts, everyWord(Yearly, n), monthWord(r.Month)+day, clock)
	}
	out := strings.Join(parts, " ")
	if r.SkipHolidays && !holidaysSaid {
		out += "、祝日は除く"
	}
	if !r.Start.IsZero() {
		out += "、" + shortDate(r.Start) + "から"
	}
	if !r.Until.IsZero() {
		out += "、" + shortDate(r.Until) + "まで"
	}
	if r.Count > 0 {
		out += "、" + strconv.Itoa(r.Count) + "回"
	}
	return out
}

// shortDate writes a day without its year: 3月31日.
func shortDate(t time.Time) string {
	return strconv.Itoa(int(t.Month())) + "月" + strconv.Itoa(t.Day()) + "日"
}
