package recur

import (
	"slices"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/holiday"
)

// A rule that skips holidays goes on after a run of them, however often it
// fires: Golden Week 2027 (5/3–5/5) holds 72 hourly and 288 quarter-hourly
// occurrences, and the first working day after it has its reminders.
func TestHolidaysSkippedWholeDays(t *testing.T) {
	cases := []struct {
		words string
		now   time.Time
		want  []time.Time
	}{
		{"毎時 祝日は除く", at(tokyo, 2027, 5, 2, 23, 30), []time.Time{at(tokyo, 2027, 5, 6, 0, 0), at(tokyo, 2027, 5, 6, 1, 0), at(tokyo, 2027, 5, 6, 2, 0)}},
		{"毎時 祝日は除く", at(tokyo, 2027, 4, 28, 23, 30), []time.Time{at(tokyo, 2027, 4, 30, 0, 0), at(tokyo, 2027, 4, 30, 1, 0), at(tokyo, 2027, 4, 30, 2, 0)}},
		// Asked on the eve of a holiday: accepted, and next heard of on
		// the first day after the holidays.
		{"15分ごと 祝日は除く", at(tokyo, 2027, 5, 2, 23, 50), []time.Time{at(tokyo, 2027, 5, 6, 0, 0), at(tokyo, 2027, 5, 6, 0, 15), at(tokyo, 2027, 5, 6, 0, 30)}},
		{"15分ごと 祝日は除く", at(tokyo, 2026, 12, 31, 23, 50), []time.Time{at(tokyo, 2027, 1, 2, 0, 0), at(tokyo, 2027, 1, 2, 0, 15), at(tokyo, 2027, 1, 2, 0, 30)}},
		{"2時間ごと 祝日は除く", at(tokyo, 2027, 5, 2, 21, 0), []time.Time{at(tokyo, 2027, 5, 2, 22, 0), at(tokyo, 2027, 5, 6, 0, 0), at(tokyo, 2027, 5, 6, 2, 0)}},
	}
	for _, tc := range cases {
		t.Run(tc.words+" "+tc.now.Format("01-02 15:04"), func(t *testing.T) {
			r, err := Parse(tc.words, tc.now, tokyo)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			r = r.Anchor(tc.now, tokyo)
			if err := r.Validate(tc.now, tokyo); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if got := r.Next(tc.now, tokyo, len(tc.want)); !slices.EqualFunc(got, tc.want, time.Time.Equal) {
				t.Errorf("Next = %v\nwant   %v", got, tc.want)
			}
		})
	}
}

// Planned one occurrence at a time, as the scheduler does, 毎時 祝日は除く
// fires every hour of every working day of 2027 and never on a holiday.
func TestHourlyHolidayRuleLastsTheYear(t *testing.T) {
	r := Rule{Freq: Hourly, SkipHolidays: true, Start: at(tokyo, 2027, 1, 1, 0, 0)}
	s, err := r.Compile(tokyo)
	if err != nil {
		t.Fatal(err)
	}
	end := at(tokyo, 2028, 1, 1, 0, 0)
	n := 0
	for t0 := at(tokyo, 2026, 12, 31, 23, 59); ; n++ {
		next := s.Next(t0, 1)
		if len(next) != 1 {
			t.Fatalf("the rule ended after %v", t0)
		}
		if !next[0].Before(end) {
			break
		}
		if holiday.Is(next[0]) {
			t.Fatalf("fired on %v, %s", next[0], holiday.Name(next[0]))
		}
		t0 = next[0]
	}
	holidays := 0
	for d := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC); d.Year() == 2027; d = d.AddDate(0, 0, 1) {
		if holiday.Is(d) {
			holidays++
		}
	}
	if want := 24 * (365 - holidays); n != want {
		t.Errorf("%d occurrences in 2027, want %d (24 on each working day)", n, want)
	}
}

// A rule that truly only falls on holidays is still refused, for that
// reason.
func TestOnlyHolidaysRefused(t *testing.T) {
	now := at(tokyo, 2026, 12, 7, 12, 0)
	for _, words := range []string{"毎年1月1日 祝日は除く", "毎年5月3日 祝日は除く", "毎年11月23日の9時 祝日は除く"} {
		t.Run(words, func(t *testing.T) {
			r, err := Parse(words, now, tokyo)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			r = r.Anchor(now, tokyo)
			const want = "この先の回はすべて祝日に当たるので、一度も通知されません"
			if err := r.Validate(now, tokyo); err == nil || err.Error() != want {
				t.Errorf("Validate = %v, want %q", err, want)
			}
		})
	}
}

// The nights daylight saving time begins and ends in New York. Hourly and
// quarter-hourly rules fire once in each real hour or quarter: never twice
// at the same instant, never in the hour that does not exist, and twice at
// 1:00 when 1:00 comes twice. A daily 2:30, a time that does not exist the
// night the clock springs forward, fires at 3:30, where the clock shows the
// same time after the jump (a user who asked for 2:30 would rather be
// reminded late than not at all), and a daily 1:30 fires once the night
// 1:30 comes twice, at the first.
func TestDSTNights(t *testing.T) {
	edt := time.FixedZone("EDT", -4*3600)
	est := time.FixedZone("EST", -5*3600)
	cases := []struct {
		name  string
		rule  Rule
		after time.Time
		want  []time.Time
	}{
		{"hourly, spring forward", Rule{Freq: Hourly}, at(est, 2026, 3, 7, 23, 30),
			[]time.Time{at(est, 2026, 3, 8, 0, 0), at(est, 2026, 3, 8, 1, 0), at(edt, 2026, 3, 8, 3, 0), at(edt, 2026, 3, 8, 4, 0)}},
		{"hourly, fall back", Rule{Freq: Hourly}, at(edt, 2026, 10, 31, 23, 30),
			[]time.Time{at(edt, 2026, 11, 1, 0, 0), at(edt, 2026, 11, 1, 1, 0), at(est, 2026, 11, 1, 1, 0), at(est, 2026, 11, 1, 2, 0), at(est, 2026, 11, 1, 3, 0)}},
		{"every 30 minutes, spring forward", Rule{Freq: Minutely, Interval: 30}, at(est, 2026, 3, 8, 0, 50),
			[]time.Time{at(est, 2026, 3, 8, 1, 0), at(est, 2026, 3, 8, 1, 30), at(edt, 2026, 3, 8, 3, 0), at(edt, 2026, 3, 8, 3, 30)}},
		{"every 30 minutes, fall back", Rule{Freq: Minutely, Interval: 30}, at(edt, 2026, 11, 1, 0, 50),
			[]time.Time{at(edt, 2026, 11, 1, 1, 0), at(edt, 2026, 11, 1, 1, 30), at(est, 2026, 11, 1, 1, 0), at(est, 2026, 11, 1, 1, 30), at(est, 2026, 11, 1, 2, 0)}},
		// Every 2 hours keeps to the even hours of the clock: the night
		// 1:00 comes twice, 0:00 to 2:00 is three real hours.
		{"every 2 hours, fall back", Rule{Freq: Hourly, Interval: 2}, at(edt, 2026, 10, 31, 21, 30),
			[]time.Time{at(edt, 2026, 10, 31, 22, 0), at(edt, 2026, 11, 1, 0, 0), at(est, 2026, 11, 1, 2, 0), at(est, 2026, 11, 1, 4, 0)}},
		// 2:00 does not exist: it fires at 3:00, two real hours after
		// 0:00, and 4:00 keeps to the clock.
		{"every 2 hours, spring forward", Rule{Freq: Hourly, Interval: 2}, at(est, 2026, 3, 7, 21, 30),
			[]time.Time{at(est, 2026, 3, 7, 22, 0), at(est, 2026, 3, 8, 0, 0), at(edt, 2026, 3, 8, 3, 0), at(edt, 2026, 3, 8, 4, 0), at(edt, 2026, 3, 8, 6, 0)}},
		// 5回 is five reminders, whatever the clock does.
		{"hourly 5 times, spring forward", Rule{Freq: Hourly, Count: 5, Start: time.Date(2026, 3, 8, 0, 0, 0, 0, newYork)}, at(est, 2026, 3, 7, 23, 30),
			[]time.Time{at(est, 2026, 3, 8, 0, 0), at(est, 2026, 3, 8, 1, 0), at(edt, 2026, 3, 8, 3, 0), at(edt, 2026, 3, 8, 4, 0), at(edt, 2026, 3, 8, 5, 0)}},
		{"hourly 5 times, fall back", Rule{Freq: Hourly, Count: 5, Start: time.Date(2026, 11, 1, 0, 0, 0, 0, newYork)}, at(edt, 2026, 10, 31, 23, 30),
			[]time.Time{at(edt, 2026, 11, 1, 0, 0), at(edt, 2026, 11, 1, 1, 0), at(est, 2026, 11, 1, 1, 0), at(est, 2026, 11, 1, 2, 0), at(est, 2026, 11, 1, 3, 0)}},
		{"daily 2:30, spring forward", Rule{Freq: Daily, Hour: 2, Minute: 30}, at(est, 2026, 3, 7, 12, 0),
			[]time.Time{at(edt, 2026, 3, 8, 3, 30), at(edt, 2026, 3, 9, 2, 30)}},
		{"daily 2:30, fall back", Rule{Freq: Daily, Hour: 2, Minute: 30}, at(edt, 2026, 10, 31, 12, 0),
			[]time.Time{at(est, 2026, 11, 1, 2, 30), at(est, 2026, 11, 2, 2, 30)}},
		{"daily 1:30, fall back", Rule{Freq: Daily, Hour: 1, Minute: 30}, at(edt, 2026, 10, 31, 12, 0),
			[]time.Time{at(edt, 2026, 11, 1, 1, 30), at(est, 2026, 11, 2, 1, 30)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.rule.Start.IsZero() {
				tc.rule.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, newYork)
			}
			// One more asked for than there are: a count ends there.
			got := tc.rule.Next(tc.after, newYork, len(tc.want)+min(tc.rule.Count, 1))
			if !slices.EqualFunc(got, tc.want, time.Time.Equal) {
				t.Errorf("Next = %v\nwant   %v", got, tc.want)
			}
			for _, g := range got {
				if g.Location() != newYork {
					t.Errorf("%v is not in New York's time", g)
				}
			}
		})
	}
}

// In New York, an hourly rule and a quarter-hourly one planned one
// occurrence at a time are one real hour or quarter apart every time,
// through the two weeks around each change of the clock.
func TestDSTEveryRealStep(t *testing.T) {
	for _, r := range []Rule{{Freq: Hourly}, {Freq: Minutely, Interval: 15}} {
		r.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, newYork)
		s, err := r.Compile(newYork)
		if err != nil {
			t.Fatal(err)
		}
		step := time.Duration(r.every()) * time.Minute
		if r.Freq == Hourly {
			step = time.Hour
		}
		for _, window := range [][2]time.Time{
			{at(newYork, 2026, 3, 1, 0, 0), at(newYork, 2026, 3, 15, 0, 0)},
			{at(newYork, 2026, 10, 25, 0, 0), at(newYork, 2026, 11, 8, 0, 0)},
		} {
			for prev := window[0]; prev.Before(window[1]); {
				next := s.Next(prev, 1)
				if len(next) != 1 || next[0].Sub(prev) != step {
					t.Fatalf("%s: after %v comes %v, want %v later", r.Describe(), prev, next, step)
				}
				prev = next[0]
			}
		}
	}
}

// BenchmarkNextAcrossHolidays: the first occurrence after Golden Week,
// asked on its eve, and Validate refusing a rule of holidays only, which
// walks every year of the calendar.
func BenchmarkNextAcrossHolidays(b *testing.B) {
	eve := at(tokyo, 2027, 5, 2, 23, 50)
	for _, r := range []Rule{
		{Freq: Hourly, SkipHolidays: true, Start: day(2027, 4, 1)},
		{Freq: Minutely, Interval: 15, SkipHolidays: true, Start: day(2027, 4, 1)},
		{Freq: Hourly, SkipHolidays: true, Start: day(2027, 4, 28), Count: 1000},
	} {
		s, err := r.Compile(tokyo)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(r.Describe(), func(b *testing.B) {
			for b.Loop() {
				if len(s.Next(eve, 1)) != 1 {
					b.Fatal("no next occurrence")
				}
			}
		})
	}
	b.Run("毎年1月1日 refused", func(b *testing.B) {
		r := Rule{Freq: Yearly, Month: time.January, MonthDays: []int{1}, Hour: 9, SkipHolidays: true, Start: day(2026, 12, 7)}
		for b.Loop() {
			if r.Validate(eve, tokyo) == nil {
				b.Fatal("accepted")
			}
		}
	})
}
