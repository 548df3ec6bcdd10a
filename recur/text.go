package recur

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/teambition/rrule-go"
)

// rfcDays are RFC 5545's day names, by time.Weekday.
var rfcDays = [7]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}

// RRULE writes r as RFC 5545 text in the zone loc: a DTSTART line with
// TZID giving Start and the time of day, then the RRULE line, e.g.
//
//	DTSTART;TZID=Asia/Tokyo:20261203T070000
//	RRULE:FREQ=WEEKLY;BYDAY=MO,TH
//
// UNTIL is the end of the last day, in UTC as RFC 5545 asks. SkipHolidays
// has no place in RFC 5545 and is stored beside the text. A rule without
// Start (not anchored, see Anchor) is written floating: the RRULE line
// alone, with the time of day as BYHOUR and BYMINUTE and UNTIL in local
// time; where an hourly or minutely rule starts counting (9時から30分ごと)
// needs a DTSTART and is lost, so anchor a rule before storing it.
func (r Rule) RRULE(loc *time.Location) string {
	var b strings.Builder
	floating := r.Start.IsZero()
	if !floating {
		y, m, d := r.Start.Date()
		stamp := fmt.Sprintf("%04d%02d%02dT%02d%02d00", y, m, d, r.Hour, r.Minute)
		if loc == time.UTC {
			b.WriteString("DTSTART:" + stamp + "Z\n")
		} else {
			b.WriteString("DTSTART;TZID=" + loc.String() + ":" + stamp + "\n")
		}
	}
	b.WriteString("RRULE:FREQ=" + strings.ToUpper(string(r.Freq)))
	if n := r.every(); n > 1 {
		b.WriteString(";INTERVAL=" + strconv.Itoa(n))
	}
	if r.Count > 0 {
		b.WriteString(";COUNT=" + strconv.Itoa(r.Count))
	}
	if !r.Until.IsZero() {
		y, m, d := r.Until.Date()
		if floating {
			fmt.Fprintf(&b, ";UNTIL=%04d%02d%02dT235959", y, m, d)
		} else {
			end := time.Date(y, m, d, 23, 59, 59, 0, loc)
			b.WriteString(";UNTIL=" + end.UTC().Format(rrule.DateTimeFormat))
		}
	}
	if r.Month != 0 {
		b.WriteString(";BYMONTH=" + strconv.Itoa(int(r.Month)))
	}
	if len(r.MonthDays) > 0 {
		var days []string
		for _, d := range sortedInts(r.MonthDays) {
			days = append(days, strconv.Itoa(d))
		}
		b.WriteString(";BYMONTHDAY=" + strings.Join(days, ","))
	}
	if len(r.Weekdays) > 0 {
		var days []string
		for _, d := range sortedDays(r.Weekdays) {
			if r.Nth != 0 {
				days = append(days, strconv.Itoa(r.Nth)+rfcDays[d])
			} else {
				days = append(days, rfcDays[d])
			}
		}
		b.WriteString(";BYDAY=" + strings.Join(days, ","))
	}
	if floating {
		switch r.Freq {
		case Daily, Weekly, Monthly, Yearly:
			fmt.Fprintf(&b, ";BYHOUR=%d;BYMINUTE=%d", r.Hour, r.Minute)
		case Hourly:
			fmt.Fprintf(&b, ";BYMINUTE=%d", r.Minute)
		}
	}
	return b.String()
}

// FromRRULE reads text written by RRULE back into a Rule and its zone;
// skipHolidays is the flag stored beside it. Text without DTSTART is
// floating and read in UTC. It refuses RFC 5545 parts a Rule cannot hold
// (BYSETPOS, several months, SECONDLY, …).
func FromRRULE(text string, skipHolidays bool) (Rule, *time.Location, error) {
	r := Rule{SkipHolidays: skipHolidays}
	loc := time.UTC
	var lines []string
	for l := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 2 {
		var err error
		if r.Start, loc, r.Hour, r.Minute, err = readDTSTART(lines[0]); err != nil {
			return Rule{}, nil, fmt.Errorf("read rrule %q: %w", text, err)
		}
		lines = lines[1:]
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "RRULE:") {
		return Rule{}, nil, fmt.Errorf("read rrule %q: want an optional DTSTART line and one RRULE line", text)
	}
	opt, err := rrule.StrToROptionInLocation(lines[0], loc)
	if err != nil {
		return Rule{}, nil, fmt.Errorf("read rrule %q: %w", text, err)
	}
	if err := fromOptions(&r, opt); err != nil {
		return Rule{}, nil, fmt.Errorf("read rrule %q: %w", text, err)
	}
	return r, loc, nil
}

// readDTSTART reads "DTSTART;TZID=Zone:20261203T070000" (or a UTC
// "DTSTART:20261203T070000Z") as the day, its zone and the time of day,
// from the digits as written: a time in a daylight saving gap is not
// moved.
func readDTSTART(line string) (start time.Time, loc *time.Location, hour, minute int, err error) {
	rest, ok := strings.CutPrefix(line, "DTSTART")
	if !ok {
		return time.Time{}, nil, 0, 0, errors.New("the first line is not DTSTART")
	}
	params, stamp, ok := strings.Cut(rest, ":")
	if !ok {
		return time.Time{}, nil, 0, 0, errors.New("DTSTART has no value")
	}
	loc = time.UTC
	switch {
	case strings.HasPrefix(params, ";TZID="):
		if loc, err = LoadLocation(strings.TrimPrefix(params, ";TZID=")); err != nil {
			return time.Time{}, nil, 0, 0, fmt.Errorf("DTSTART zone: %w", err)
		}
	case params != "" || !strings.HasSuffix(stamp, "Z"):
		return time.Time{}, nil, 0, 0, errors.New("DTSTART is neither in a TZID zone nor in UTC")
	}
	t, err := time.Parse(rrule.LocalDateTimeFormat, strings.TrimSuffix(stamp, "Z"))
	if err != nil {
		return time.Time{}, nil, 0, 0, fmt.Errorf("DTSTART: %w", err)
	}
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc), loc, t.Hour(), t.Minute(), nil
}

// fromOptions fills r from rrule-go's reading of an RRULE line.
func fromOptions(r *Rule, opt *rrule.ROption) error {
	r.Freq = ""
	for f, rf := range rruleFreqs {
		if rf == opt.Freq {
			r.Freq = f
		}
	}
	if r.Freq == "" {
		return fmt.Errorf("FREQ=%v is not offered", opt.Freq)
	}
	if len(opt.Bysetpos)+len(opt.Byyearday)+len(opt.Byweekno)+len(opt.Bysecond)+len(opt.Byeaster) > 0 || opt.Wkst != rrule.MO {
		return errors.New("BYSETPOS, BYYEARDAY, BYWEEKNO, BYSECOND, BYEASTER and WKST are not offered")
	}
	if len(opt.Bymonth) > 1 || len(opt.Byhour) > 1 || len(opt.Byminute) > 1 {
		return errors.New("one month and one time of day at most")
	}
	r.Interval, r.Count = opt.Interval, opt.Count
	if !opt.Until.IsZero() {
		// UNTIL is read in the DTSTART zone (or UTC); the rule keeps its day.
		r.Until = midnight(opt.Until.In(startLoc(r)))
	}
	if len(opt.Bymonth) == 1 {
		r.Month = time.Month(opt.Bymonth[0])
	}
	r.MonthDays = opt.Bymonthday
	for _, w := range opt.Byweekday {
		d := time.Weekday((w.Day() + 1) % 7)
		if w.N() != 0 {
			if r.Nth != 0 || r.Freq != Monthly {
				return errors.New("a numbered BYDAY is offered once, in a monthly rule")
			}
			r.Nth = w.N()
		}
		r.Weekdays = append(r.Weekdays, d)
	}
	if len(opt.Byhour) == 1 {
		r.Hour = opt.Byhour[0]
	}
	if len(opt.Byminute) == 1 {
		r.Minute = opt.Byminute[0]
	}
	return nil
}

// startLoc is the zone r's Start is kept in, UTC for a floating rule.
func startLoc(r *Rule) *time.Location {
	if r.Start.IsZero() {
		return time.UTC
	}
	return r.Start.Location()
}
