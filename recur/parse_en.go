package recur

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

const (
	enDay   = `monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun`
	enMonth = `january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec`
	enOrd   = `(?:st|nd|rd|th)`
	// enDatePhrase is a day as said after from, starting, until, through.
	enDatePhrase = `(?:today|tomorrow|next\s+(?:week|month|year)|(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?(?:month|year|` + enMonth + `)` +
		`|\d{4}[-/]\d{1,2}[-/]\d{1,2}` +
		`|(?:` + enMonth + `)\.?(?:\s+\d{1,2}` + enOrd + `?)?(?:,?\s+\d{4})?` +
		`|(?:the\s+)?\d{1,2}` + enOrd + `?\s+(?:of\s+)?(?:` + enMonth + `)\.?(?:,?\s+\d{4})?` +
		`|(?:next\s+)?(?:` + enDay + `)|\d{4})`
)

var (
	enHolidaySkip = regexp.MustCompile(`\b(?:except|excluding|skip(?:ping)?|not\s+on|but\s+not\s+on|no|other\s+than)\s+(?:on\s+)?(?:public\s+|national\s+|bank\s+)?holidays\b|\bholidays\s+(?:excluded|off|skipped)\b`)
	enHolidayKeep = regexp.MustCompile(`\b(?:including|incl\.?|even\s+on|also\s+on)\s+(?:public\s+|national\s+|bank\s+)?holidays\b`)

	enPer   = regexp.MustCompile(`\b(once|twice|thrice|\d+\s+times)\s+(?:a|per|each|every)\s+(hour|day|week|month|year)\b`)
	enCount = regexp.MustCompile(`\b(?:for\s+)?(\d+)\s+(?:times|occurrences|reminders)\b`)

	enNoDays = regexp.MustCompile(`\b(?:except|excluding|but\s+not|not\s+on|skip(?:ping)?)\s+(?:on\s+)?(weekends?|(?:` + enDay + `)s?(?:\s*(?:,|and|or|&)\s*(?:` + enDay + `)s?)*)(?:\s*(?:,|and|or|&)\s*(?:public\s+|national\s+|bank\s+)?(holidays))?\b`)
	enRange  = regexp.MustCompile(`\b(` + enDay + `)s?\s*(?:-|to|through|thru|till|until)\s*(` + enDay + `)s?\b`)
	enStart  = regexp.MustCompile(`\b(?:from|starting(?:\s+(?:on|from))?|beginning(?:\s+on)?|effective)\s+(` + enDatePhrase + `)\b`)
	enUntil  = regexp.MustCompile(`\b(?:until|till|til|through|thru|ending(?:\s+on)?|ends?\s+on|up\s+to)\s+(` + enDatePhrase + `)\b`)

	enNth      = regexp.MustCompile(`\b(?:the\s+)?(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+(` + enDay + `)\b`)
	enDays     = regexp.MustCompile(`\b(?:(every|each|on)\s+)?(` + enDay + `)(s)?\b`)
	enWorkdays = regexp.MustCompile(`\b(?:every|each)\s+(?:weekday|work(?:ing)?\s+day|business\s+day)\b|\b(?:on\s+)?(?:weekdays|work(?:ing)?\s+days|business\s+days)\b`)
	enWeekends = regexp.MustCompile(`\b(?:every|each)\s+weekend\b|\b(?:on\s+)?weekends\b`)

	enEveryN   = regexp.MustCompile(`\bevery\s+(\d+|other|second|third|fourth)\s+(minute|min|hour|hr|day|week|month|year)s?\b`)
	enPartHour = regexp.MustCompile(`\bevery\s+(half|quarter)\s+(?:of\s+)?(?:an\s+)?hour\b`)
	enEvery    = regexp.MustCompile(`\b(?:every|each)\s+(?:single\s+)?(minute|hour|day|week|month|year|morning|afternoon|evening|night)\b`)
	enAdverb   = regexp.MustCompile(`\b(hourly|daily|nightly|weekly|monthly|yearly|annually|biweekly|fortnightly|bimonthly)\b`)
	enMonthEnd = regexp.MustCompile(`\b(?:the\s+)?(?:last\s+day|end)\s+of\s+(?:every|each|the)\s+month\b`)
	enOfMonth  = regexp.MustCompile(`\b(?:of|in)\s+(?:every|each|the)\s+month\b`)
	enEveryDay = regexp.MustCompile(`\bevery\s+(` + enMonth + `)\.?\s+(\d{1,2})` + enOrd + `?\b`)

	enLastDay  = regexp.MustCompile(`\b(?:the\s+)?last\s+day\b`)
	enMonthDay = regexp.MustCompile(`\b(?:the\s+)?(\d{1,2})` + enOrd + `\b`)
	enYearDay  = regexp.MustCompile(`\b(` + enMonth + `)\.?\s+(\d{1,2})` + enOrd + `?\b|\b(\d{1,2})` + enOrd + `?\s+(?:of\s+)?(` + enMonth + `)\b|\b(\d{1,2})/(\d{1,2})\b`)

	enAmPm     = regexp.MustCompile(`\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b`)
	enColon    = regexp.MustCompile(`\b(\d{1,2}):(\d{2})\b`)
	enAt       = regexp.MustCompile(`\bat\s+(\d{1,2})(?:\s*o'?clock)?\b|\b(\d{1,2})\s*o'?clock\b`)
	enNoon     = regexp.MustCompile(`\b(noon|midday|midnight)\b`)
	enPeriod   = regexp.MustCompile(`\b(morning|afternoon|evening|night|tonight)s?\b`)
	enPastHour = regexp.MustCompile(`(?:^|\s):(\d{2})\b|\b(\d{1,2})\s+(?:minutes?\s+)?past\b|\b(quarter|half)\s+past\b|\bon\s+the\s+hour\b`)
)

var enWeekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "sun": time.Sunday, "monday": time.Monday, "mon": time.Monday,
	"tuesday": time.Tuesday, "tues": time.Tuesday, "tue": time.Tuesday,
	"wednesday": time.Wednesday, "wed": time.Wednesday,
	"thursday": time.Thursday, "thurs": time.Thursday, "thur": time.Thursday, "thu": time.Thursday,
	"friday": time.Friday, "fri": time.Friday, "saturday": time.Saturday, "sat": time.Saturday,
}

var enPeriods = map[string]string{
	"morning": periodMorning, "afternoon": periodAfternoon, "evening": periodEvening,
	"night": periodNight, "tonight": periodNight,
}

var enOrdinals = map[string]int{
	"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
	"fifth": 5, "5th": 5, "last": -1, "other": 2,
}

// enMonthOf is the month an English name (or its abbreviation) names.
func enMonthOf(s string) time.Month {
	for m := time.January; m <= time.December; m++ {
		if strings.HasPrefix(strings.ToLower(m.String()), s[:3]) {
			return m
		}
	}
	return 0
}

// english reads English words, in the order japanese does.
func (p *reading) english() error {
	if m := p.take(enNoDays); m != nil {
		// Before the holidays: except weekends and holidays leaves out both.
		if strings.HasPrefix(m[1], "weekend") {
			p.notDays = append(p.notDays, time.Saturday, time.Sunday)
		}
		for _, d := range enDays.FindAllStringSubmatch(m[1], -1) {
			p.notDays = append(p.notDays, enWeekdays[d[2]])
		}
		p.skip = p.skip || m[2] != ""
	}
	p.holidays(enHolidaySkip, enHolidayKeep)
	return steps(p.enCounts, p.enStartEnd, p.enWeekdays, p.enUnits, p.enDaysOf, p.enClock)
}

func (p *reading) enCounts() error {
	if m := p.take(enPer); m != nil {
		if m[1] != "once" {
			return timesPer(m[0], "every day at 7, every day at 19")
		}
		f := map[string]Freq{"hour": Hourly, "day": Daily, "week": Weekly, "month": Monthly, "year": Yearly}[m[2]]
		p.addUnit(f, 1, m[0], "")
	}
	if m := p.take(enCount); m != nil {
		if p.count = atoi(m[1]); p.count == 0 {
			return errors.New("0回では一度も通知されません（例: 10 times）")
		}
	}
	return nil
}

func (p *reading) enStartEnd() error {
	// Ranges of days first: "monday to friday" is not an end.
	if m := p.take(enRange); m != nil {
		p.units = append(p.units, unit{freq: Weekly, n: 1, word: m[0], weak: true})
		p.days = append(p.days, dayRange(enWeekdays[m[1]], enWeekdays[m[2]])...)
	}
	if m := p.take(enStart); m != nil {
		d, err := p.enDate(m[1], false)
		if err != nil {
			return err
		}
		if p.start, err = p.resolve(d, false); err != nil {
			return err
		}
	}
	if m := p.take(enUntil); m != nil {
		d, err := p.enDate(m[1], true)
		if err != nil {
			return err
		}
		p.until = d
	}
	return nil
}

var (
	enISODate   = regexp.MustCompile(`^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$`)
	enMonthDate = regexp.MustCompile(`^(?:(?:the\s+)?end\s+of\s+)?(` + enMonth + `)\.?(?:\s+(\d{1,2})` + enOrd + `?)?(?:,?\s+(\d{4}))?$`)
	enDayMonth  = regexp.MustCompile(`^(?:the\s+)?(\d{1,2})` + enOrd + `?\s+(?:of\s+)?(` + enMonth + `)\.?(?:,?\s+(\d{4}))?$`)
	enWeekday   = regexp.MustCompile(`^(?:next\s+)?(` + enDay + `)$`)
	enYear      = regexp.MustCompile(`^\d{4}$`)
)

// enDate reads a phrase matched by enDatePhrase; end says it closes the
// rule (a month then means its last day).
func (p *reading) enDate(s string, end bool) (dateSpec, error) {
	today := midnight(p.now)
	y, mo, d := today.Date()
	at := func(y int, m time.Month, d int) dateSpec {
		return dateSpec{set: true, date: time.Date(y, m, d, 0, 0, 0, 0, p.loc)}
	}
	monday := d - (int(today.Weekday())+6)%7
	switch {
	case s == "today":
		return at(y, mo, d), nil
	case s == "tomorrow":
		return at(y, mo, d+1), nil
	case strings.HasSuffix(s, "week"):
		if end {
			return at(y, mo, monday+6), nil // until next week: through this Sunday
		}
		return at(y, mo, monday+7), nil
	case strings.HasSuffix(s, "month") && strings.HasPrefix(s, "next"):
		if end {
			return at(y, mo+1, 0), nil
		}
		return at(y, mo+1, 1), nil
	case strings.HasSuffix(s, "month"):
		return at(y, mo+1, 0), nil
	case strings.HasSuffix(s, "next year"):
		if end {
			return at(y, time.December, 31), nil
		}
		return at(y+1, time.January, 1), nil
	case strings.HasSuffix(s, "year"):
		return at(y, time.December, 31), nil
	case enYear.MatchString(s):
		if end {
			return at(atoi(s), time.December, 31), nil
		}
		return at(atoi(s), time.January, 1), nil
	}
	if m := enISODate.FindStringSubmatch(s); m != nil {
		return dateSpec{set: true, year: atoi(m[1]), month: time.Month(atoi(m[2])), day: atoi(m[3])}, nil
	}
	if m := enMonthDate.FindStringSubmatch(s); m != nil {
		return dateSpec{set: true, year: atoi(m[3]), month: enMonthOf(m[1]), day: atoi(m[2])}, nil
	}
	if m := enDayMonth.FindStringSubmatch(s); m != nil {
		return dateSpec{set: true, year: atoi(m[3]), month: enMonthOf(m[2]), day: atoi(m[1])}, nil
	}
	if m := enWeekday.FindStringSubmatch(s); m != nil {
		ahead := (int(enWeekdays[m[1]]) - int(today.Weekday()) + 7) % 7
		if strings.HasPrefix(s, "next") && ahead == 0 {
			ahead = 7
		}
		return at(y, mo, d+ahead), nil
	}
	return dateSpec{}, fmt.Errorf("日付「%s」が読めません（例: from next week, starting Dec 10, until March, until 2027-03-31）", s)
}

func (p *reading) enWeekdays() error {
	if m := p.take(enNth); m != nil {
		if err := p.setNth(enOrdinals[m[1]], enWeekdays[m[2]]); err != nil {
			return err
		}
		if p.take(enNth) != nil {
			return errors.New("第N曜日が二つあります: 一つずつ登録してください（例: the second Tuesday of every month）")
		}
	}
	for m := p.take(enDays); m != nil; m = p.take(enDays) {
		if m[1] == "every" || m[1] == "each" || m[3] != "" {
			// every monday, mondays: weekly; on monday alone is one day.
			p.addUnit(Weekly, 1, m[0], "")
		}
		p.days = append(p.days, enWeekdays[m[2]])
	}
	if m := p.take(enWorkdays); m != nil {
		p.addUnit(Weekly, 1, m[0], "")
		p.days = append(p.days, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday)
		p.weekdays = true
	}
	if m := p.take(enWeekends); m != nil {
		p.addUnit(Weekly, 1, m[0], "")
		p.days = append(p.days, time.Saturday, time.Sunday)
	}
	return nil
}

func (p *reading) enUnits() error {
	units := map[string]Freq{"minute": Minutely, "min": Minutely, "hour": Hourly, "hr": Hourly, "day": Daily, "week": Weekly, "month": Monthly, "year": Yearly}
	if m := p.take(enEveryN); m != nil {
		n, ok := enOrdinals[m[1]]
		if !ok {
			n = atoi(m[1])
		}
		if n < 1 {
			return fmt.Errorf("「%s」の間隔が読めません（例: every 2 weeks, every 30 minutes）", m[0])
		}
		p.addUnit(units[m[2]], n, m[0], "")
	}
	if m := p.take(enPartHour); m != nil {
		p.addUnit(Minutely, map[string]int{"half": 30, "quarter": 15}[m[1]], m[0], "")
	}
	if m := p.take(enMonthEnd); m != nil {
		p.addUnit(Monthly, 1, m[0], "")
		p.monthDays = append(p.monthDays, -1)
	}
	if m := p.take(enEveryDay); m != nil {
		p.addUnit(Yearly, 1, m[0], "")
		if err := p.setDate(int(enMonthOf(m[1])), atoi(m[2])); err != nil {
			return err
		}
	}
	for m := p.take(enEvery); m != nil; m = p.take(enEvery) {
		if period, ok := enPeriods[m[1]]; ok {
			p.addUnit(Daily, 1, m[0], period)
		} else {
			p.addUnit(units[m[1]], 1, m[0], "")
		}
	}
	for m := p.take(enAdverb); m != nil; m = p.take(enAdverb) {
		u := map[string]unit{
			"hourly": {freq: Hourly, n: 1}, "daily": {freq: Daily, n: 1}, "nightly": {freq: Daily, n: 1, period: periodNight},
			"weekly": {freq: Weekly, n: 1}, "biweekly": {freq: Weekly, n: 2}, "fortnightly": {freq: Weekly, n: 2},
			"monthly": {freq: Monthly, n: 1}, "bimonthly": {freq: Monthly, n: 2},
			"yearly": {freq: Yearly, n: 1}, "annually": {freq: Yearly, n: 1},
		}[m[1]]
		p.addUnit(u.freq, u.n, m[0], u.period)
	}
	if m := p.take(enOfMonth); m != nil && (p.nth != 0 || enMonthDay.MatchString(p.s) || enLastDay.MatchString(p.s)) {
		// the 1st of the month, the second tuesday of the month
		p.addUnit(Monthly, 1, m[0], "")
	}
	return nil
}

// enDaysOf reads the days a monthly or yearly rule falls on.
func (p *reading) enDaysOf() error {
	switch p.freq() {
	case Monthly:
		return p.monthDaysBy(enLastDay, enMonthDay)
	case Yearly:
		if m := p.take(enYearDay); m != nil {
			switch {
			case m[1] != "":
				return p.setDate(int(enMonthOf(m[1])), atoi(m[2]))
			case m[4] != "":
				return p.setDate(int(enMonthOf(m[4])), atoi(m[3]))
			}
			return p.setDate(atoi(m[5]), atoi(m[6]))
		}
	}
	return nil
}

func (p *reading) enClock() error {
	u, _ := p.mergeUnits()
	period := u.period // every night
	if m := enPeriod.FindStringSubmatch(p.s); m != nil {
		period = enPeriods[m[1]]
	}
	for m := p.take(enAmPm); m != nil; m = p.take(enAmPm) {
		h := withPeriod(atoi(m[1]), map[string]string{"am": periodAM, "pm": periodAfternoon}[m[3]])
		if err := p.setClock(h, atoi(m[2]), m[0]); err != nil {
			return err
		}
	}
	for m := p.take(enColon); m != nil; m = p.take(enColon) {
		if err := p.setClock(withPeriod(atoi(m[1]), period), atoi(m[2]), m[0]); err != nil {
			return err
		}
	}
	if u.freq == Hourly && !p.clock {
		if m := p.take(enPastHour); m != nil {
			mm := atoi(m[1]) + atoi(m[2]) + map[string]int{"quarter": 15, "half": 30}[m[3]]
			if err := p.setMinute(mm); err != nil {
				return err
			}
		}
	}
	for m := p.take(enAt); m != nil; m = p.take(enAt) {
		if err := p.setClock(withPeriod(atoi(m[1]+m[2]), period), 0, m[0]); err != nil {
			return err
		}
	}
	if m := p.take(enNoon); m != nil {
		h := 12
		if m[1] == "midnight" {
			h = 0
		}
		if err := p.setClock(h, 0, m[0]); err != nil {
			return err
		}
	}
	p.period = period
	return nil
}
