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
		// rrule-go runs on wall-clock time written as UTC (see
		// occurrences), the end of the last day included.
		y, m, d := r.Until.Date()
		s.opt.Until = time.Date(y, m, d, 23, 59, 59, 0, time.UTC)
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
// 10回 with one holiday among them reminds nine times. A holiday is passed
// over whole: the rule goes on from the start of the next day that is not
// one, so 15分ごと across Golden Week costs a few steps, not hundreds. Only
// a rule that falls on holidays for as long as the holiday calendar runs
// (毎年1月1日, 祝日は除く) has no next occurrence.
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
	next := s.occurrences(opt, start, after)
	out := make([]time.Time, 0, n)
	for len(out) < n {
		t, ok := next()
		if !ok {
			break
		}
		if s.rule.SkipHolidays && t.Year() > holiday.LastYear {
			break // no calendar past it to tell a holiday by
		}
		if s.rule.SkipHolidays && holiday.Is(t) {
			day := s.nextWorkingDay(t)
			next = s.occurrences(opt, start, day.Add(-time.Nanosecond))
			continue
		}
		out = append(out, t)
	}
	return out
}

// nextWorkingDay is the start of the first day after t's that is not a
// national holiday, in the schedule's zone.
func (s *Schedule) nextWorkingDay(t time.Time) time.Time {
	y, m, d := t.Date()
	for {
		d++
		day := time.Date(y, m, d, 0, 0, 0, 0, s.loc)
		if !holiday.Is(day) {
			return day
		}
	}
}

// occurrences iterates the rule's occurrences strictly after after, in
// time order, in the schedule's zone.
//
// rrule-go is run on wall-clock time written as UTC, where every day has 24
// hours, and each wall time it yields is then placed in the zone. Run in
// the zone itself it builds each occurrence with time.Date, which puts a
// wall time in a daylight saving gap an hour back: an hourly rule showed
// 1:00 twice the night New York springs forward, and skipped the repeated
// hour when it falls back. Placed here, a time in a gap moves forward by
// the gap (2:30 → 3:30, where the clock shows after the jump; an hourly
// rule's 2:00 becomes 3:00, which it already has, so that night has 23
// occurrences, one a real hour), and a time the clock shows twice fires at
// the first, and at the second too when the rule fires at least once an
// hour: every real hour of that night has its hourly reminder, once, while
// a daily 1:30 fires once.
func (s *Schedule) occurrences(opt rrule.ROption, start, after time.Time) func() (time.Time, bool) {
	if s.rule.Freq == Hourly || s.rule.Freq == Minutely {
		// From a little earlier on the wall clock: after may be in the
		// second reading of a repeated hour, whose times were read on the
		// wall clock the first time round.
		opt.Dtstart = wall(s.from(start, after.Add(-2*time.Hour)))
	} else {
		// The time of day is in BYHOUR and BYMINUTE; from the day's
		// start, a DTSTART moved by a gap cannot pass that day's time.
		opt.Dtstart = midnight(wall(s.from(start, after)))
	}
	// The count is of the times given, not of the wall times rrule-go
	// reads: 5回 is five reminders, also across a night with a time in a
	// gap (given once, at the time after it) or a repeated hour (given
	// twice). A counted rule is iterated from its start (from), so every
	// one is counted here.
	limit := opt.Count
	opt.Count = 0
	rr, err := rrule.NewRRule(opt)
	if err != nil {
		return func() (time.Time, bool) { return time.Time{}, false }
	}
	next := rr.Iterator()
	given := 0
	repeat := s.rule.Freq == Minutely && s.rule.every() <= 60 || s.rule.Freq == Hourly && s.rule.every() == 1
	var (
		last     time.Time
		pending  []time.Time // second readings of repeated wall times, in order
		peek     time.Time   // a wall time read ahead, behind a pending one
		havePeek bool
	)
	return func() (time.Time, bool) {
		for {
			w, ok := peek, havePeek
			if havePeek {
				havePeek = false
			} else {
				w, ok = next()
			}
			var t time.Time
			switch {
			case !ok && len(pending) == 0:
				return time.Time{}, false
			case !ok:
				t, pending = pending[0], pending[1:]
			default:
				at := s.place(w)
				if len(pending) > 0 && pending[0].Before(at[0]) {
					t, pending = pending[0], pending[1:]
					peek, havePeek = w, true
					break
				}
				t = at[0]
				if len(at) > 1 && repeat {
					pending = append(pending, at[1])
				}
			}
			// A time moved out of a gap may land on one already given.
			if !t.After(last) {
				continue
			}
			if limit > 0 && given == limit {
				return time.Time{}, false
			}
			last = t
			given++
			if t.After(after) {
				return t, true
			}
		}
	}
}

// place is the instants in the schedule's zone when the clock shows wall
// (a wall-clock time written as UTC): one, or two in the hour the clock
// repeats, the earlier first; a time in a gap is moved forward by the gap.
func (s *Schedule) place(wall time.Time) []time.Time {
	const day = 24 * 60 * 60
	u := wall.Unix()
	// The offsets a day either side are the ones around any change in
	// between: zones change their offset at most once in two days.
	_, before := time.Unix(u-day, 0).In(s.loc).Zone()
	_, after := time.Unix(u+day, 0).In(s.loc).Zone()
	var out []time.Time
	for _, off := range []int{before, after} {
		t := time.Unix(u-int64(off), int64(wall.Nanosecond())).In(s.loc)
		if _, o := t.Zone(); o == off && (len(out) == 0 || !out[0].Equal(t)) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		// In the gap: the clock read on the old offset is after the jump.
		out = append(out, time.Unix(u-int64(before), int64(wall.Nanosecond())).In(s.loc))
	}
	if len(out) == 2 && out[1].Before(out[0]) {
		out[0], out[1] = out[1], out[0]
	}
	return out
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
