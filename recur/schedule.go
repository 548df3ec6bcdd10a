package recur

import (
	"time"

	"github.com/teambition/rrule-go"
	"github.com/yorozu-bot/yorozu/holiday"
)

// Schedule is a rule made ready to plan in one zone: compile it once, when
// it is loaded, and ask it for occurrences as often as needed. It is safe
// for concurrent use.
type Schedule struct {
	rule Rule
	loc  *time.Location
	// opt is the rule as rrule-go's options, all but DTSTART, which Next
	// sets on each call; the days RFC 5545 would take from DTSTART are
	// written out, so that moving DTSTART does not move them.
	opt rrule.ROption
}

// rruleFreqs are rrule-go's names for the frequencies.
var rruleFreqs = map[Freq]rrule.Frequency{
	Minutely: rrule.MINUTELY, Hourly: rrule.HOURLY, Daily: rrule.DAILY,
	Weekly: rrule.WEEKLY, Monthly: rrule.MONTHLY, Yearly: rrule.YEARLY,
}

// maxSkipped is how many holidays in a row Next passes over before it
// stops looking: a rule that only ever falls on holidays (毎年1月1日,
// 祝日は除く) has no next occurrence.
const maxSkipped = 50

// Compile checks r's fields and makes it ready to plan in loc.
func (r Rule) Compile(loc *time.Location) (*Schedule, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	s := &Schedule{rule: r, loc: loc}
	s.opt = rrule.ROption{
		Freq:     rruleFreqs[r.Freq],
		Interval: r.every(),
		Count:    r.Count,
	}
	if !r.Until.IsZero() {
		y, m, d := r.Until.Date()
		s.opt.Until = time.Date(y, m, d, 23, 59, 59, 0, loc)
	}
	switch r.Freq {
	case Weekly:
		for _, d := range sortedDays(r.Weekdays) {
			s.opt.Byweekday = append(s.opt.Byweekday, rruleDay(d, 0))
		}
	case Monthly:
		if r.Nth != 0 {
			s.opt.Byweekday = []rrule.Weekday{rruleDay(r.Weekdays[0], r.Nth)}
		}
		s.opt.Bymonthday = sortedInts(r.MonthDays)
	case Yearly:
		s.opt.Bymonth = []int{int(r.Month)}
		s.opt.Bymonthday = r.MonthDays
	}
	if r.Freq != Minutely && r.Freq != Hourly {
		// The time of day from DTSTART would be shifted when DTSTART
		// falls in a daylight saving gap; said outright it is kept.
		s.opt.Byhour, s.opt.Byminute, s.opt.Bysecond = []int{r.Hour}, []int{r.Minute}, []int{0}
	}
	if !r.Start.IsZero() {
		s.fillFromStart(&s.opt, r.Start)
	}
	return s, nil
}

// fillFromStart writes out the weekday a weekly rule without days takes
// from its first day.
func (s *Schedule) fillFromStart(opt *rrule.ROption, start time.Time) {
	if s.rule.Freq == Weekly && len(opt.Byweekday) == 0 {
		opt.Byweekday = []rrule.Weekday{rruleDay(start.Weekday(), 0)}
	}
}

// rruleDay is rrule-go's weekday d, the nth in the month when n is not 0.
func rruleDay(d time.Weekday, n int) rrule.Weekday {
	w := [7]rrule.Weekday{rrule.SU, rrule.MO, rrule.TU, rrule.WE, rrule.TH, rrule.FR, rrule.SA}[d]
	if n != 0 {
		return w.Nth(n)
	}
	return w
}

// Next returns r's next n occurrences strictly after after, in loc; see
// Schedule.Next. It compiles r each time: keep a Schedule to plan often.
func (r Rule) Next(after time.Time, loc *time.Location, n int) []time.Time {
	s, err := r.Compile(loc)
	if err != nil {
		return nil
	}
	return s.Next(after, n)
}

// Next returns the next n occurrences strictly after after, in the
// schedule's zone, fewer when the rule ends sooner.
//
// With SkipHolidays, an occurrence on a national holiday is passed over
// but still counts toward Count, as RFC 5545 counts what the RRULE yields:
// the stored text and any calendar reading it agree on the last day, and
// 10回 with one holiday among them reminds nine times.
//
// A rule without Start begins on after's day; anchor a rule (Anchor)
// before storing it, or 隔週 and Count would restart with every call.
func (s *Schedule) Next(after time.Time, n int) []time.Time {
	if n <= 0 {
		return nil
	}
	after = after.In(s.loc)
	opt := s.opt
	start := s.rule.Start
	if start.IsZero() {
		start = midnight(after)
		s.fillFromStart(&opt, start)
	}
	opt.Dtstart = s.from(start, after)
	rr, err := rrule.NewRRule(opt)
	if err != nil {
		return nil
	}
	next := rr.Iterator()
	out := make([]time.Time, 0, n)
	for skipped := 0; len(out) < n; {
		t, ok := next()
		if !ok {
			break
		}
		t = s.pastGap(t)
		if !t.After(after) {
			continue
		}
		if s.rule.SkipHolidays && holiday.Is(t) {
			if skipped++; skipped > maxSkipped {
				break
			}
			continue
		}
		skipped = 0
		out = append(out, t)
	}
	return out
}

// pastGap moves an occurrence whose time of day does not exist that day,
// being in a daylight saving gap (2:30 on the night New York springs
// forward), to where the clock shows after the jump (3:30), rather than
// the hour before it, where Go's time.Date may put it.
func (s *Schedule) pastGap(t time.Time) time.Time {
	r := s.rule
	if r.Freq == Hourly || r.Freq == Minutely || t.Hour() == r.Hour && t.Minute() == r.Minute {
		return t
	}
	return t.Add(time.Duration((r.Hour-t.Hour())*60+r.Minute-t.Minute()) * time.Minute)
}

// from is the DTSTART to iterate from. A counted rule starts at its own
// start, since every occurrence since then counts; any other starts at the
// beginning of the last whole period (of Interval units, in step with the
// rule's start) before after, so that a rule begun years ago costs no more
// to plan than a new one.
func (s *Schedule) from(start, after time.Time) time.Time {
	r := s.rule
	n := r.every()
	y, m, d := start.Date()
	at := func(y int, m time.Month, d int) time.Time {
		return time.Date(y, m, d, r.Hour, r.Minute, 0, 0, s.loc)
	}
	first := at(y, m, d)
	if r.Count > 0 || !after.After(first) {
		return first
	}
	ay, am, _ := after.Date()
	switch r.Freq {
	case Daily:
		if k := (civilDays(start, after) - 1) / n; k > 0 {
			return at(y, m, d+k*n)
		}
	case Weekly:
		// Weeks run Monday to Sunday (RFC 5545's default WKST=MO).
		monday := d - (int(start.Weekday())+6)%7
		weeks := (civilDays(start, after) + (int(start.Weekday())+6)%7) / 7
		if k := (weeks - 1) / n; k > 0 {
			return at(y, m, monday+7*k*n)
		}
	case Monthly:
		if k := ((ay*12 + int(am)) - (y*12 + int(m)) - 1) / n; k > 0 {
			return at(y, m+time.Month(k*n), 1)
		}
	case Yearly:
		if k := (ay - y - 1) / n; k > 0 {
			return at(y+k*n, time.January, 1)
		}
	case Hourly, Minutely:
		// rrule-go steps hours and minutes on the wall clock, so the
		// periods are counted on it too.
		step := time.Duration(n) * time.Minute
		if r.Freq == Hourly {
			step = time.Duration(n) * time.Hour
		}
		wall0, wallAfter := wall(first), wall(after)
		for k := int(wallAfter.Sub(wall0)/step) - 1; k > 0; k-- {
			w := wall0.Add(time.Duration(k) * step)
			t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), 0, 0, s.loc)
			if t.Hour() == w.Hour() && t.Minute() == w.Minute() {
				return t
			}
			// That wall time does not exist here (a daylight saving
			// gap): a period earlier.
		}
	}
	return first
}

// wall is t's wall-clock reading as a UTC time, to count in wall-clock
// hours and minutes.
func wall(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// civilDays counts calendar days from a's date to b's, each in its own
// location.
func civilDays(a, b time.Time) int {
	return int(midnightOf(b).Sub(midnightOf(a)) / (24 * time.Hour))
}
