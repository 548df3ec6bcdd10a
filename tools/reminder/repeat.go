package reminder

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/recur"
	"github.com/yorozu-bot/yorozu/tools"
)

// Repeating reminders and scheduled posts: the model proposes a rule as
// repeatArgs, and the tool checks it against recur.Parse's reading of the
// user's own words before anything is stored.

// repeatArgs is a repeating schedule as the model proposes it; rule turns
// it into a recur.Rule.
type repeatArgs struct {
	Frequency    string   `json:"frequency" jsonschema:"enum=minutely,enum=hourly,enum=daily,enum=weekly,enum=monthly,enum=yearly" jsonschema_description:"the unit it repeats in: daily (毎日, 毎朝), weekly (毎週, 平日, 隔週, 毎週月曜), monthly (毎月1日, 毎月末, 毎月第2火曜), yearly (毎年3月14日), hourly or minutely (2時間ごと, 30分ごと: at least every 15 minutes)"`
	Interval     int      `json:"interval,omitempty" jsonschema:"minimum=1,maximum=999" jsonschema_description:"every how many units; leave out for every one. 2 with weekly is every other week (隔週), 3 with daily every 3 days"`
	Weekdays     []string `json:"weekdays,omitempty" jsonschema_description:"the days of a weekly rule as MO TU WE TH FR SA SU (e.g. [\"MO\",\"TH\"]; 平日 is [\"MO\",\"TU\",\"WE\",\"TH\",\"FR\"]); with nth, the one day of a monthly rule (第2火曜: [\"TU\"]). Leave out for every day of a daily rule"`
	MonthDays    []int    `json:"month_days,omitempty" jsonschema_description:"the days of the month of a monthly rule, 1 to 31, -1 for the last day (毎月末: [-1]; 毎月1日と15日: [1,15]); a yearly rule has exactly one (毎年3月14日: [14])"`
	Nth          int      `json:"nth,omitempty" jsonschema:"minimum=-1,maximum=5" jsonschema_description:"with one weekday, which week of the month: 1 to 5, -1 for the last (毎月第2火曜: 2, 毎月最終金曜: -1)"`
	Month        int      `json:"month,omitempty" jsonschema:"minimum=1,maximum=12" jsonschema_description:"a yearly rule's month, 1 to 12 (毎年3月14日: 3)"`
	Time         string   `json:"time,omitempty" jsonschema_description:"the time of day as HH:MM in the user's time zone (朝7時: 07:00, 夜9時: 21:00); leave out when the user gave none (a daily or longer rule then fires at 09:00). For hourly and minutely rules, where the count starts on the first day (毎時15分: 00:15)"`
	Start        string   `json:"start,omitempty" jsonschema_description:"the first day it may fire, YYYY-MM-DD, only when the user said one (来週から, 12月10日から); leave out to start now"`
	Until        string   `json:"until,omitempty" jsonschema_description:"the last day it may fire, inclusive, YYYY-MM-DD, only when the user said one (3月まで: the 31st of March)"`
	Count        int      `json:"count,omitempty" jsonschema:"minimum=1,maximum=1000" jsonschema_description:"how many times at most, only when the user said so (10回)"`
	SkipHolidays bool     `json:"skip_holidays,omitempty" jsonschema_description:"true to skip Japan's national holidays (祝日は除く); 平日 means true unless the user says 祝日も"`
}

// dayCodes are RFC 5545's names of the days, by time.Weekday.
var dayCodes = [7]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}

// dayNames are the names weekdays accepts, beside dayCodes: English, and
// Japanese with 曜 and 曜日 taken off.
var dayNames = map[string]time.Weekday{
	"su": time.Sunday, "mo": time.Monday, "tu": time.Tuesday, "we": time.Wednesday,
	"th": time.Thursday, "fr": time.Friday, "sa": time.Saturday,
	"sun": time.Sunday, "sunday": time.Sunday, "日": time.Sunday,
	"mon": time.Monday, "monday": time.Monday, "月": time.Monday,
	"tue": time.Tuesday, "tuesday": time.Tuesday, "火": time.Tuesday,
	"wed": time.Wednesday, "wednesday": time.Wednesday, "水": time.Wednesday,
	"thu": time.Thursday, "thursday": time.Thursday, "木": time.Thursday,
	"fri": time.Friday, "friday": time.Friday, "金": time.Friday,
	"sat": time.Saturday, "saturday": time.Saturday, "土": time.Saturday,
}

// rule turns a into a recur.Rule read in loc. A value that makes no sense
// is an *tools.ArgumentError naming the field, so the model can fix it;
// whether the rule can be kept is Validate's to say.
func (a repeatArgs) rule(loc *time.Location) (recur.Rule, error) {
	bad := func(field, problem string, args ...any) error {
		return &tools.ArgumentError{Field: "repeat." + field, Problem: fmt.Sprintf(problem, args...)}
	}
	r := recur.Rule{
		Freq: recur.Freq(strings.ToLower(strings.TrimSpace(a.Frequency))), Interval: a.Interval,
		Nth: a.Nth, Month: time.Month(a.Month), Count: a.Count, SkipHolidays: a.SkipHolidays,
	}
	switch r.Freq {
	case recur.Minutely, recur.Hourly, recur.Daily, recur.Weekly, recur.Monthly, recur.Yearly:
	default:
		return recur.Rule{}, bad("frequency", "%q is not a frequency: use minutely, hourly, daily, weekly, monthly or yearly", a.Frequency)
	}
	if a.Interval < 0 {
		return recur.Rule{}, bad("interval", "%d: give a positive number (2 with weekly is every other week), or leave it out", a.Interval)
	}
	for _, s := range a.Weekdays {
		days, err := weekdays(s)
		if err != nil {
			return recur.Rule{}, bad("weekdays", "%s", err)
		}
		r.Weekdays = append(r.Weekdays, days...)
	}
	for _, d := range a.MonthDays {
		if d != -1 && (d < 1 || d > 31) {
			return recur.Rule{}, bad("month_days", "%d is not a day of the month: use 1 to 31, or -1 for the last day", d)
		}
	}
	r.MonthDays = slices.Clone(a.MonthDays)
	if a.Nth == 0 && len(a.Weekdays) > 0 && r.Freq == recur.Monthly {
		return recur.Rule{}, bad("nth", "a monthly rule on a weekday needs nth, which week of the month (1 to 5, -1 for the last): 毎月第2火曜 is nth 2 with weekdays [\"TU\"]")
	}
	switch {
	case strings.TrimSpace(a.Time) != "":
		h, m, err := clock(a.Time)
		if err != nil {
			return recur.Rule{}, bad("time", "%s", err)
		}
		r.Hour, r.Minute = h, m
	case r.Freq != recur.Minutely && r.Freq != recur.Hourly:
		r.Hour = 9 // as recur.Parse reads words that name no time
	}
	var err error
	if r.Start, err = day(a.Start, loc); err != nil {
		return recur.Rule{}, bad("start", "%s", err)
	}
	if r.Until, err = day(a.Until, loc); err != nil {
		return recur.Rule{}, bad("until", "%s", err)
	}
	if !r.Start.IsZero() && !r.Until.IsZero() && r.Until.Before(r.Start) {
		return recur.Rule{}, bad("until", "%s is before start %s: until is the last day it fires, inclusive; fix one of them (or ask the user)",
			a.Until, a.Start)
	}
	return r, nil
}

// weekdays reads one element of repeat.weekdays: MO, Monday, 月, 月曜,
// 月曜日, a range (MO-FR, 月〜金), 平日, or several joined by commas or ・.
func weekdays(s string) ([]time.Weekday, error) {
	var out []time.Weekday
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return strings.ContainsRune(",、・ /", r) }) {
		if part == "平日" || strings.EqualFold(part, "weekdays") {
			part = "MO-FR"
		}
		from, to, isRange := cutRange(part)
		a, ok := dayName(from)
		if !ok {
			return nil, fmt.Errorf("%q is not a day of the week: use MO TU WE TH FR SA SU (月 火 水 木 金 土 日 are accepted too)", from)
		}
		if !isRange {
			out = append(out, a)
			continue
		}
		b, ok := dayName(to)
		if !ok {
			return nil, fmt.Errorf("%q is not a day of the week: use MO TU WE TH FR SA SU (月 火 水 木 金 土 日 are accepted too)", to)
		}
		for d := a; ; d = (d + 1) % 7 {
			out = append(out, d)
			if d == b {
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q names no day: use MO TU WE TH FR SA SU", s)
	}
	return out, nil
}

// cutRange splits MO-FR and 月〜金 into their ends.
func cutRange(s string) (from, to string, ok bool) {
	for _, sep := range []string{"〜", "～", "~", "-", "から"} {
		if a, b, ok := strings.Cut(s, sep); ok {
			return a, b, true
		}
	}
	return s, "", false
}

func dayName(s string) (time.Weekday, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimSuffix(strings.TrimSuffix(s, "日"), "曜")
	if s == "" {
		s = "日" // 日 itself, or 日曜日 with both suffixes gone
	}
	d, ok := dayNames[s]
	return d, ok
}

// clock reads HH:MM (7:00 and 07:00 alike).
func clock(s string) (h, m int, err error) {
	s = strings.TrimSpace(s)
	hs, ms, ok := strings.Cut(s, ":")
	if ok {
		ms = strings.TrimSuffix(ms, ":00") // 07:00:00
		h, herr := strconv.Atoi(hs)
		m, merr := strconv.Atoi(ms)
		if herr == nil && merr == nil && len(ms) == 2 && h >= 0 && h <= 23 && m >= 0 && m <= 59 {
			return h, m, nil
		}
	}
	return 0, 0, fmt.Errorf("%q is not a time of day: use HH:MM from 00:00 to 23:59 (e.g. 07:00, 21:30)", s)
}

// day reads a YYYY-MM-DD day (an RFC 3339 time's date is taken too) as
// midnight in loc; "" is the zero time.
func day(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	date := s
	if len(s) > 10 && s[10] == 'T' {
		date = s[:10]
	}
	t, err := time.ParseInLocation(time.DateOnly, date, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a day: use YYYY-MM-DD, e.g. 2026-12-10", s)
	}
	return t, nil
}

// argsOf writes r as the repeat argument the model would give for it, for
// a question that asks the user which reading they meant.
func argsOf(r recur.Rule) repeatArgs {
	a := repeatArgs{
		Frequency: string(r.Freq), Nth: r.Nth, Month: int(r.Month), Count: r.Count, SkipHolidays: r.SkipHolidays,
		MonthDays: r.MonthDays, Time: fmt.Sprintf("%02d:%02d", r.Hour, r.Minute),
	}
	if r.Interval > 1 {
		a.Interval = r.Interval
	}
	for _, d := range r.Weekdays {
		a.Weekdays = append(a.Weekdays, dayCodes[d])
	}
	if !r.Start.IsZero() {
		a.Start = r.Start.Format(time.DateOnly)
	}
	if !r.Until.IsZero() {
		a.Until = r.Until.Format(time.DateOnly)
	}
	return a
}

func argsJSON(r recur.Rule) string {
	b, err := json.Marshal(argsOf(r))
	if err != nil {
		return "{}"
	}
	return string(b)
}

// sameOccurrences is how many occurrences two rules that differ only in
// their start must share to be taken as one schedule.
const sameOccurrences = 10

// checkRepeat refuses a proposed rule that disagrees with the user's own
// words. Both are anchored to today, since the words seldom say a start;
// rules that differ only in the start but fire on the same days (the
// model wrote the first occurrence's day as start) agree. Words that read
// as no rule, or cannot be read, leave the model's rule as it is: the
// words may be the answer to a question (はい、そっちで).
func checkRepeat(tool, text string, proposed recur.Rule, now time.Time, loc *time.Location) error {
	said, err := recur.Parse(text, now, loc)
	if err != nil {
		return nil
	}
	a, b := said.Anchor(now, loc), proposed.Anchor(now, loc)
	if a.Equal(b) {
		return nil
	}
	startless := b
	startless.Start = a.Start
	if startless.Equal(a) && slices.EqualFunc(a.Next(now, loc, sameOccurrences), b.Next(now, loc, sameOccurrences), time.Time.Equal) {
		return nil
	}
	return fmt.Errorf("the user's words %q read as 「%s」, but repeat is 「%s」 (what differs, the words / your repeat: %s). "+
		"Do not create it yet: ask the user which they mean, giving both in words, then call %s with the confirmed repeat "+
		"(the words' reading as repeat: %s)",
		text, said.Describe(), proposed.Describe(), strings.Join(recur.Diff(a, b), "; "), tool, argsJSON(said))
}

// checkOnce refuses a one-shot due time when the user's words read as a
// repeating rule.
func checkOnce(text string, due, now time.Time, loc *time.Location) error {
	said, err := recur.Parse(text, now, loc)
	if err != nil {
		return nil
	}
	return fmt.Errorf("the user's words %q read as a repeating schedule 「%s」, but you gave a one-shot due_at %s. "+
		"Do not create it yet: ask the user whether it should repeat (「%s」) or happen once (%s), "+
		"then call create_reminder with repeat for a repeating one (the words' reading: %s), or with due_at alone for once",
		text, said.Describe(), show(due, loc), said.Describe(), show(due, loc), argsJSON(said))
}

// schedule is a repeating reminder or post to create.
type schedule struct {
	tool    string // the tool creating it, for the messages
	kind    string // db.KindRemind, db.KindPost or db.KindDigest
	what    string // "repeating reminder", "scheduled post" or "digest"
	content string
	repeat  repeatArgs
}

// upcomingShown is how many occurrences a confirmation shows.
const upcomingShown = 3

// createSchedule checks s against the user's words and limits, stores it
// and says what will happen.
func createSchedule(ctx context.Context, svc Service, c tools.Caller, s schedule) (string, error) {
	content := strings.TrimSpace(s.content)
	field := "content"
	if db.PostKind(s.kind) {
		field = "prompt"
	}
	if content == "" {
		return "", fmt.Errorf("%s is empty: say what the %s is about and call %s again", field, s.what, s.tool)
	}
	if n := utf8.RuneCountInString(content); n > maxContent {
		return "", fmt.Errorf("%s is %d characters, at most %d: shorten it and call %s again", field, n, maxContent, s.tool)
	}
	loc, now := svc.LocationFor(ctx, c.UserID), svc.Now()
	if db.PostKind(s.kind) {
		// The prompt is asked anew at each time: a schedule left in it
		// would be read again then, as a request for another schedule.
		if said, err := recur.Parse(content, now, loc); err == nil {
			return "", fmt.Errorf("prompt %q still holds the schedule (「%s」): put the schedule in repeat only, and in prompt only what to write each time (e.g. 今週の話題をまとめて)",
				content, said.Describe())
		}
	}
	proposed, err := s.repeat.rule(loc)
	if err != nil {
		return "", err
	}
	rule := proposed.Anchor(now, loc)
	if err := rule.Validate(now, loc); err != nil {
		return "", fmt.Errorf("the repeat rule 「%s」 cannot be kept: %w. Fix repeat and call %s again, or tell the user why in their language",
			proposed.Describe(), err, s.tool)
	}
	if err := checkRepeat(s.tool, c.Text, proposed, now, loc); err != nil {
		return "", err
	}
	if proposed.Count > 0 && proposed.Start.IsZero() {
		// A count is counted from the start, and today's time may be gone:
		// 毎日8時に2回 said at noon is tomorrow and the day after.
		if first := rule.Next(now, loc, 1); len(first) > 0 {
			y, m, d := first[0].In(loc).Date()
			rule.Start = time.Date(y, m, d, 0, 0, 0, 0, loc)
		}
	}
	if pending, err := svc.List(ctx, c.UserID, ""); err != nil {
		return "", fmt.Errorf("could not check the user's reminders: %w", err)
	} else if len(pending) >= svc.MaxPending() {
		return "", fmt.Errorf("the user already has %d pending reminders, the most allowed; tell them to cancel some first (list_reminders shows them)", len(pending))
	}
	r, err := svc.Repeat(ctx, db.ReminderParams{
		SessionKey: c.Session, GuildID: c.GuildID, ChannelID: c.ChannelID, UserID: c.UserID,
		Content: content, SourceMessageID: c.MessageID, Kind: s.kind,
	}, rule, loc)
	if err != nil {
		return "", fmt.Errorf("the %s was not saved: %w; tell the user", s.what, err)
	}
	text := confirmation(svc, r, s.what, proposed.Describe(), loc)
	if s.kind == db.KindDigest {
		if note := svc.DigestNote(ctx, c.GuildID, c.ChannelID); note != "" {
			text += "\nWhat it reads — tell the user this too, as it is: " + note
		}
	}
	return text, nil
}

// confirmation says what was stored, the rule in words and its next
// occurrences, to be written as they are: the user sees at once what will
// happen.
func confirmation(svc Service, r db.Reminder, what, words string, loc *time.Location) string {
	next := svc.Upcoming(r, upcomingShown)
	stamps := make([]string, len(next))
	shown := make([]string, len(next))
	for i, t := range next {
		stamps[i], shown[i] = stamp(t, "F"), show(t, loc)
	}
	return fmt.Sprintf("Created %s #%d: 「%s」 — %s\n"+
		"Next: %s (that is %s)\n"+
		"In your reply, confirm it in the user's language: say the schedule as 「%s」 and write the next times exactly as %s — "+
		"Discord shows these in each reader's time zone, so the user sees at once what will happen.",
		what, r.ID, words, r.Content,
		strings.Join(stamps, ", "), strings.Join(shown, ", "),
		words, strings.Join(stamps, ", "))
}
