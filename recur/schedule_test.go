package recur

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/teambition/rrule-go"
)

var newYork = mustZone("America/New_York")

func at(loc *time.Location, y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, loc)
}

func TestNextHolidays(t *testing.T) {
	cases := []struct {
		name  string
		rule  Rule
		after time.Time
		n     int
		want  []time.Time
	}{
		{
			name:  "毎月1日 9:00, 祝日は除く: 元日 2027 is passed over",
			rule:  Rule{Freq: Monthly, MonthDays: []int{1}, Hour: 9, Start: day(2026, 11, 1), SkipHolidays: true},
			after: parseNow, n: 3,
			want: []time.Time{at(tokyo, 2027, 2, 1, 9, 0), at(tokyo, 2027, 3, 1, 9, 0), at(tokyo, 2027, 4, 1, 9, 0)},
		},
		{
			name:  "毎月1日 9:00 with holidays: 元日 fires",
			rule:  Rule{Freq: Monthly, MonthDays: []int{1}, Hour: 9, Start: day(2026, 11, 1)},
			after: parseNow, n: 2,
			want: []time.Time{at(tokyo, 2027, 1, 1, 9, 0), at(tokyo, 2027, 2, 1, 9, 0)},
		},
		{
			name:  "平日 9:00: 成人の日 (Monday 11 January 2027) is passed over",
			rule:  Rule{Freq: Weekly, Weekdays: monFriD, Hour: 9, Start: day(2026, 12, 1), SkipHolidays: true},
			after: at(tokyo, 2027, 1, 8, 10, 0), n: 3,
			want: []time.Time{at(tokyo, 2027, 1, 12, 9, 0), at(tokyo, 2027, 1, 13, 9, 0), at(tokyo, 2027, 1, 14, 9, 0)},
		},
		{
			name:  "平日 read from words skips 成人の日 too",
			rule:  mustParse("平日9時"),
			after: at(tokyo, 2027, 1, 8, 10, 0), n: 1,
			want: []time.Time{at(tokyo, 2027, 1, 12, 9, 0)},
		},
		{
			// RFC 5545 counts what the RRULE yields: 10回 from 28 December
			// ends on 6 January whatever is skipped, so 元日 costs one.
			name:  "10回 with a holiday among them reminds nine times",
			rule:  Rule{Freq: Daily, Hour: 9, Start: day(2026, 12, 28), Count: 10, SkipHolidays: true},
			after: day(2026, 12, 27), n: 20,
			want: []time.Time{
				at(tokyo, 2026, 12, 28, 9, 0), at(tokyo, 2026, 12, 29, 9, 0), at(tokyo, 2026, 12, 30, 9, 0), at(tokyo, 2026, 12, 31, 9, 0),
				at(tokyo, 2027, 1, 2, 9, 0), at(tokyo, 2027, 1, 3, 9, 0), at(tokyo, 2027, 1, 4, 9, 0), at(tokyo, 2027, 1, 5, 9, 0), at(tokyo, 2027, 1, 6, 9, 0),
			},
		},
		{
			name:  "毎年1月1日, 祝日は除く: never",
			rule:  Rule{Freq: Yearly, Month: time.January, MonthDays: []int{1}, Hour: 9, Start: day(2026, 1, 1), SkipHolidays: true},
			after: parseNow, n: 1,
			want: []time.Time{},
		},
		{
			name:  "3月31日まで, inclusive",
			rule:  Rule{Freq: Monthly, MonthDays: []int{-1}, Hour: 21, Start: day(2026, 12, 1), Until: day(2027, 3, 31)},
			after: parseNow, n: 10,
			want: []time.Time{at(tokyo, 2026, 12, 31, 21, 0), at(tokyo, 2027, 1, 31, 21, 0), at(tokyo, 2027, 2, 28, 21, 0), at(tokyo, 2027, 3, 31, 21, 0)},
		},
		{
			name:  "strictly after: an occurrence at after is not next",
			rule:  Rule{Freq: Daily, Hour: 10, Start: day(2026, 1, 1)},
			after: parseNow, n: 1,
			want: []time.Time{at(tokyo, 2026, 12, 3, 10, 0)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.rule.Next(tc.after, tokyo, tc.n)
			if !slices.EqualFunc(got, tc.want, time.Time.Equal) {
				t.Errorf("Next = %v\nwant   %v", got, tc.want)
			}
		})
	}
}

func mustParse(words string) Rule {
	r, err := Parse(words, parseNow, tokyo)
	if err != nil {
		panic(err)
	}
	return r.Anchor(parseNow, tokyo)
}

// TestNextDST: in New York a weekly 9:00 stays 9:00 on the wall clock
// across both daylight saving changes, so its UTC time moves by an hour.
func TestNextDST(t *testing.T) {
	r := Rule{Freq: Weekly, Weekdays: []time.Weekday{time.Monday}, Hour: 9, Start: time.Date(2026, 10, 1, 0, 0, 0, 0, newYork)}
	s, err := r.Compile(newYork)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Next(at(newYork, 2026, 10, 20, 12, 0), 3)              // Oct 26 (EDT), Nov 2 and 9 (EST)
	got = append(got, s.Next(at(newYork, 2027, 3, 2, 12, 0), 2)...) // Mar 8 (EST), Mar 15 (EDT)
	want := []struct {
		day     int
		utcHour int
	}{{26, 13}, {2, 14}, {9, 14}, {8, 14}, {15, 13}}
	if len(got) != len(want) {
		t.Fatalf("Next = %v", got)
	}
	for i, g := range got {
		if g.Hour() != 9 || g.Minute() != 0 || g.Weekday() != time.Monday || g.Day() != want[i].day || g.UTC().Hour() != want[i].utcHour {
			t.Errorf("occurrence %d = %v (%v UTC), want Monday the %d at 9:00, %d:00 UTC", i, g, g.UTC(), want[i].day, want[i].utcHour)
		}
	}
}

// TestNextDSTGap: 2:30 does not exist in New York on 14 March 2027; that
// day fires when the clock has sprung forward, and the next day is back
// at 2:30.
func TestNextDSTGap(t *testing.T) {
	r := Rule{Freq: Daily, Hour: 2, Minute: 30, Start: time.Date(2027, 3, 1, 0, 0, 0, 0, newYork)}
	got := r.Next(at(newYork, 2027, 3, 13, 12, 0), newYork, 2)
	if len(got) != 2 || got[0].Day() != 14 || got[0].Hour() != 3 || got[0].Minute() != 30 ||
		got[1].Day() != 15 || got[1].Hour() != 2 || got[1].Minute() != 30 {
		t.Errorf("Next = %v, want 14 March 3:30 EDT then 15 March 2:30", got)
	}
}

// TestNextFromLongAgo: Next starts iterating near after rather than at the
// rule's start; what it finds is what iterating from the start finds.
func TestNextFromLongAgo(t *testing.T) {
	start := day(2019, 3, 5) // a Tuesday
	rules := []Rule{
		{Freq: Daily, Hour: 7},
		{Freq: Daily, Interval: 3, Hour: 7, Minute: 30},
		{Freq: Weekly, Weekdays: monThu, Hour: 8},
		{Freq: Weekly, Interval: 2, Weekdays: []time.Weekday{time.Saturday}, Hour: 10},
		{Freq: Weekly, Interval: 3, Hour: 9},
		{Freq: Weekly, Interval: 2, Weekdays: []time.Weekday{time.Sunday, time.Monday}, Hour: 23, Minute: 59},
		{Freq: Monthly, MonthDays: []int{1, 15}, Hour: 9},
		{Freq: Monthly, Interval: 2, MonthDays: []int{-1}, Hour: 21},
		{Freq: Monthly, Interval: 5, MonthDays: []int{31}, Hour: 6},
		{Freq: Monthly, Nth: 2, Weekdays: []time.Weekday{time.Tuesday}, Hour: 19, Minute: 30},
		{Freq: Monthly, Interval: 3, Nth: -1, Weekdays: []time.Weekday{time.Friday}, Hour: 18},
		{Freq: Yearly, Month: time.March, MonthDays: []int{14}, Hour: 8},
		{Freq: Yearly, Interval: 4, Month: time.February, MonthDays: []int{29}, Hour: 8},
		{Freq: Hourly, Interval: 5, Minute: 10},
		{Freq: Minutely, Interval: 45},
		{Freq: Minutely, Interval: 90, Hour: 1, Minute: 20},
	}
	rng := rand.New(rand.NewPCG(24, 1))
	for _, loc := range []*time.Location{tokyo, newYork} {
		for _, r := range rules {
			r.Start = time.Date(2019, 3, 5, 0, 0, 0, 0, loc)
			s, err := r.Compile(loc)
			if err != nil {
				t.Fatalf("%+v: %v", r, err)
			}
			span := 10 * 365 * 24 * time.Hour
			if r.Freq == Hourly || r.Freq == Minutely {
				span /= 10 // the slow way is slow: a year of minutes is plenty
			}
			for range 12 {
				after := start.Add(time.Duration(rng.Int64N(int64(span)))).In(loc)
				got := s.Next(after, 3)
				want := fromStart(t, s, after, 3)
				if !slices.EqualFunc(got, want, time.Time.Equal) {
					t.Errorf("%s in %v after %v: Next = %v, from the start %v", r.Describe(), loc, after, got, want)
				}
			}
		}
	}
}

// fromStart is the next n occurrences found the slow way, iterating from
// the rule's own start.
func fromStart(t *testing.T, s *Schedule, after time.Time, n int) []time.Time {
	t.Helper()
	// A count the span never reaches makes from start at the rule's start.
	slow := *s
	slow.rule.Count, slow.opt.Count = math.MaxInt32, math.MaxInt32
	next := slow.occurrences(slow.opt, s.rule.Start, after)
	var out []time.Time
	for len(out) < n {
		v, ok := next()
		if !ok {
			break
		}
		out = append(out, v)
	}
	return out
}

// TestNextAgreesWithStoredText: what Next plans is what rrule-go finds
// reading the stored text itself, so another reader of the RRULE agrees.
func TestNextAgreesWithStoredText(t *testing.T) {
	for _, tc := range parseCases {
		if tc.err != "" {
			continue
		}
		r := mustParse(tc.words)
		r.SkipHolidays = false
		set, err := rrule.StrToRRuleSet(r.RRULE(tokyo))
		if err != nil {
			t.Fatalf("%s: %v", tc.words, err)
		}
		after := parseNow.AddDate(0, 1, 0)
		got := r.Next(after, tokyo, 3)
		var want []time.Time
		for v := set.After(after, false); !v.IsZero() && len(want) < 3; v = set.After(v, false) {
			want = append(want, v)
		}
		if !slices.EqualFunc(got, want, time.Time.Equal) {
			t.Errorf("%s (%q): Next = %v, rrule-go reads %v", tc.words, r.RRULE(tokyo), got, want)
		}
	}
}

func TestNextWithoutStart(t *testing.T) {
	r := Rule{Freq: Weekly, Weekdays: []time.Weekday{time.Friday}, Hour: 9}
	got := r.Next(parseNow, tokyo, 2)
	want := []time.Time{at(tokyo, 2026, 12, 4, 9, 0), at(tokyo, 2026, 12, 11, 9, 0)}
	if !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("Next = %v, want %v", got, want)
	}
	if got := r.Next(parseNow, tokyo, 0); got != nil {
		t.Errorf("Next(0) = %v", got)
	}
	if got := (Rule{Freq: "fortnightly"}).Next(parseNow, tokyo, 1); got != nil {
		t.Errorf("a bad rule plans %v", got)
	}
}

func BenchmarkNext(b *testing.B) {
	rules := map[string]Rule{
		"weekly":  {Freq: Weekly, Weekdays: monThu, Hour: 7, Start: day(2025, 1, 6), SkipHolidays: true},
		"monthly": {Freq: Monthly, Nth: 2, Weekdays: []time.Weekday{time.Tuesday}, Hour: 19, Minute: 30, Start: day(2024, 4, 1)},
	}
	for _, name := range []string{"weekly", "monthly"} {
		s, err := rules[name].Compile(tokyo)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			after := parseNow
			for b.Loop() {
				if len(s.Next(after, 1)) != 1 {
					b.Fatal("no next occurrence")
				}
			}
		})
	}
	b.Run("weekly from text", func(b *testing.B) {
		text := rules["weekly"].RRULE(tokyo)
		for b.Loop() {
			r, loc, err := FromRRULE(text, true)
			if err != nil || len(r.Next(parseNow, loc, 1)) != 1 {
				b.Fatal("no next occurrence")
			}
		}
	})
}
