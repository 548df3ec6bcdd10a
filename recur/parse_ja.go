package recur

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// jaWd is one day of the week, as its first letter.
const jaWd = `[月火水木金土日]`

// jaExceptWord says the days before it are left out: 土日は除く, 水曜以外.
const jaExceptWord = `(?:は|を)?\s*(?:除く|除いて|除き|のぞく|のぞいて|以外|お休み|休み|休む|なし)`

// jaDate is a day or a month as said: 2027年3月31日, 2027/3/31, 3月31日,
// 3/31, 3月, 来年3月. Groups: year, 来年/今年, month, day.
const jaDate = `(?:(\d{4})\s*[年/.\-]\s*|(来年|今年)\s*の?\s*)?(\d{1,2})\s*(?:月|/|-|\.)\s*(?:(\d{1,2})\s*日?)?`

var (
	jaHolidaySkip = regexp.MustCompile(`(?:祝日|祝祭日|祭日)\s*(?:は|を|の日は|も)?\s*(?:除く|除いて|除き|のぞく|のぞいて|以外|お休み|休み|休む|なし|無し|スキップ|飛ばす|とばす|やらない|しない)`)
	jaHolidayKeep = regexp.MustCompile(`(?:祝日|祝祭日|祭日)\s*(?:も|を?含む|を?含めて|を?含め)`)

	// 30分に1回 is a unit; 1日2回 is two times of day, which a rule has
	// not; 10回 is a count.
	jaOncePer = regexp.MustCompile(`(\d+)\s*(分|時間|日|週間?|(?:か|ヶ|ケ|カ|ヵ|箇)月|年)\s*に\s*1\s*回`)
	jaPerDay  = regexp.MustCompile(`(1日|毎日|週|毎週|月|毎月|年|毎年)\s*に?\s*(\d+)\s*回`)
	jaCount   = regexp.MustCompile(`(\d+)\s*回`)

	jaStart    = regexp.MustCompile(`(?:` + jaDate + `|(今日|本日|明日|あした|あす|明後日|あさって|今週|来週|再来週|今月|来月|再来月|来年)(?:\s*の\s*(` + jaWd + `)\s*曜日?)?)\s*(?:から|より|以降|スタート|開始)`)
	jaUntil    = regexp.MustCompile(jaDate + `\s*(?:の?末日?\s*まで|いっぱい|まで|迄)`)
	jaUntilRel = regexp.MustCompile(`(今週|来週|今月|来月|再来月|今年|来年)\s*(?:の?末\s*まで|いっぱい|中|末|まで|迄)|(年内|年末まで)`)

	jaNth       = regexp.MustCompile(`第\s*(\d)\s*(` + jaWd + `)\s*曜日?`)
	jaOtherNth  = regexp.MustCompile(`第\s*\d`)
	jaLast      = regexp.MustCompile(`(?:最終|最後の?)\s*(` + jaWd + `)\s*曜日?`)
	jaEveryWd   = regexp.MustCompile(`毎\s*(` + jaWd + `)\s*曜日?`)
	jaRange     = regexp.MustCompile(`(` + jaWd + `)(\s*曜日?)?\s*(?:~|-|から)\s*(` + jaWd + `)(\s*曜日?)?`)
	jaList      = regexp.MustCompile(jaWd + `(?:\s*曜日?)?(?:\s*(?:・|、|,|と|/|&|及び|および)?\s*` + jaWd + `(?:\s*曜日?)?)*`)
	jaItem      = regexp.MustCompile(`(` + jaWd + `)(\s*曜日?)?`)
	jaWeekly    = regexp.MustCompile(`(?:毎週|隔週|週間?\s*(?:ごと|毎|おき))\s*(?:の|に|は)?\s*$`)
	jaBadDay    = regexp.MustCompile(`([^月火水木金土日\s\d])曜`)
	jaNoWeekend = regexp.MustCompile(`(?:土日|週末)\s*(?:・|と|、)?\s*(祝日|祝祭日|祝)?\s*` + jaExceptWord)
	jaExcept    = regexp.MustCompile(`^\s*` + jaExceptWord)
	jaSatSun    = regexp.MustCompile(`(今週|来週|再来週|今度|この|次)?\s*の?\s*土日(?:祝)?`)
	jaWeekend   = regexp.MustCompile(`毎週末|毎週の週末|週末ごと|週末毎`)
	jaWorkday   = regexp.MustCompile(`毎?平日`)

	jaMinutes    = regexp.MustCompile(`(\d+)\s*分\s*(ごと|毎|おき|間隔)`)
	jaHours      = regexp.MustCompile(`(\d+)\s*時間\s*(ごと|毎|おき|間隔)`)
	jaHourly     = regexp.MustCompile(`毎時間?(?:\s*(\d{1,2})\s*分)?`)
	jaEveryMin   = regexp.MustCompile(`毎分`)
	jaEveryDays  = regexp.MustCompile(`(\d+)\s*日\s*(ごと|毎|おき)`)
	jaWeeks      = regexp.MustCompile(`(\d+)\s*週\s*間?\s*(ごと|毎|おき)`)
	jaMonths     = regexp.MustCompile(`(\d+)\s*(?:か|ヶ|ケ|カ|ヵ|箇)\s*月\s*(ごと|毎|おき)`)
	jaYears      = regexp.MustCompile(`(\d+)\s*年\s*(ごと|毎|おき)`)
	jaMonthEnd   = regexp.MustCompile(`毎月\s*の?\s*(?:末日?|最終日|最後の日)`)
	jaDaily      = regexp.MustCompile(`毎日|毎朝|毎晩|毎夜|毎夕|毎昼`)
	jaSingleUnit = regexp.MustCompile(`毎週|隔週|毎月|隔月|毎年|隔年|隔日`)

	jaMonthDay  = regexp.MustCompile(`(\d{1,2})\s*日`)
	jaLastDay   = regexp.MustCompile(`月末|末日|最終日|最後の日|末`)
	jaYearDay   = regexp.MustCompile(`(\d{1,2})\s*月\s*(?:(\d{1,2})\s*日|(末))|(\d{1,2})/(\d{1,2})`)
	jaClock     = regexp.MustCompile(`(?:(午前|午後|朝|昼|夕方|夕|夜中|深夜|夜|晩)\s*[のは、,]?\s*)?(\d{1,2})\s*時(間)?\s*(?:(半)|(\d{1,2})\s*分)?`)
	jaColon     = regexp.MustCompile(`(?:(午前|午後|朝|昼|夕方|夕|夜中|深夜|夜|晩)\s*[のは、,]?\s*)?(\d{1,2}):(\d{2})\s*(am|pm)?`)
	jaMinute    = regexp.MustCompile(`(\d{1,2})\s*分`)
	jaPeriod    = regexp.MustCompile(`深夜|夜中|午前|午後|夕方|朝|昼|夜|晩`)
	jaTimesADay = regexp.MustCompile(`朝晩|朝夕|朝と夜|朝と晩|朝昼晩`)
)

var jaWeekdays = map[string]time.Weekday{
	"日": time.Sunday, "月": time.Monday, "火": time.Tuesday, "水": time.Wednesday,
	"木": time.Thursday, "金": time.Friday, "土": time.Saturday,
}

var jaPeriods = map[string]string{
	"午前": periodAM, "午後": periodAfternoon, "朝": periodMorning, "昼": periodNoon,
	"夕方": periodEvening, "夕": periodEvening, "夜中": periodLateNight, "深夜": periodLateNight,
	"夜": periodNight, "晩": periodNight,
}

// japanese reads Japanese words, the parts that could be mistaken for one
// another first: holidays and counts, then the start and end days (so
// that 12月10日から is not a day of the month), weekdays, the unit, the
// days the unit needs, and last the time of day.
func (p *reading) japanese() error {
	if m := p.take(jaNoWeekend); m != nil {
		// Before the holidays: 土日祝は休み leaves out all three.
		p.notDays = append(p.notDays, time.Saturday, time.Sunday)
		p.skip = p.skip || m[1] != ""
	}
	p.holidays(jaHolidaySkip, jaHolidayKeep)
	return steps(p.jaCounts, p.jaStartEnd, p.jaWeekdays, p.jaUnits, p.jaDaysOf, p.jaClock)
}

func (p *reading) jaCounts() error {
	if m := p.take(jaOncePer); m != nil {
		n := atoi(m[1])
		switch {
		case m[2] == "分":
			p.addUnit(Minutely, n, m[0], "")
		case m[2] == "時間":
			p.addUnit(Hourly, n, m[0], "")
		case m[2] == "日":
			p.addUnit(Daily, n, m[0], "")
		case strings.HasPrefix(m[2], "週"):
			p.addUnit(Weekly, n, m[0], "")
		case m[2] == "年":
			p.addUnit(Yearly, n, m[0], "")
		default:
			p.addUnit(Monthly, n, m[0], "")
		}
	}
	if m := p.take(jaPerDay); m != nil && m[2] != "1" {
		return timesPer(m[0], "毎日7時、毎日19時")
	}
	if m := p.take(jaCount); m != nil {
		p.count = atoi(m[1])
		if p.count == 0 {
			return errors.New("0回では一度も通知されません（例: 10回）")
		}
	}
	return nil
}

// jaSpec reads jaDate's groups from m starting at i.
func jaSpec(m []string, i int) dateSpec {
	return dateSpec{set: true, year: atoi(m[i]), month: time.Month(atoi(m[i+2])), day: atoi(m[i+3])}
}

func (p *reading) jaStartEnd() error {
	today := midnight(p.now)
	if m := p.take(jaStart); m != nil {
		var err error
		if m[3] != "" {
			d := jaSpec(m, 1)
			d.year = p.relYear(m[2], d.year)
			p.start, err = p.resolve(d, false)
		} else {
			p.start = relStart(today, m[5], m[6])
		}
		if err != nil {
			return err
		}
	}
	if m := p.take(jaUntil); m != nil {
		p.until = jaSpec(m, 1)
		p.until.year = p.relYear(m[2], p.until.year)
	} else if m := p.take(jaUntilRel); m != nil {
		word := m[1]
		if m[2] != "" {
			word = "今年"
		}
		p.until = dateSpec{set: true, date: relEnd(today, word)}
	}
	return nil
}

// relYear is the year 来年 or 今年 names, else y.
func (p *reading) relYear(word string, y int) int {
	switch word {
	case "今年":
		return p.now.Year()
	case "来年":
		return p.now.Year() + 1
	}
	return y
}

// relStart is the first day 明日から, 来週から, 来週の水曜から, 来月から… name.
func relStart(today time.Time, word, wd string) time.Time {
	y, m, d := today.Date()
	monday := d - (int(today.Weekday())+6)%7
	day := func(dd int) time.Time { return time.Date(y, m, dd, 0, 0, 0, 0, today.Location()) }
	weekStart := func(weeks int) time.Time {
		if w, ok := jaWeekdays[wd]; ok {
			return day(monday + 7*weeks + (int(w)+6)%7)
		}
		return day(monday + 7*weeks)
	}
	switch word {
	case "明日", "あした", "あす":
		return day(d + 1)
	case "明後日", "あさって":
		return day(d + 2)
	case "今週":
		if wd != "" {
			return weekStart(0)
		}
	case "来週":
		return weekStart(1)
	case "再来週":
		return weekStart(2)
	case "来月":
		return time.Date(y, m+1, 1, 0, 0, 0, 0, today.Location())
	case "再来月":
		return time.Date(y, m+2, 1, 0, 0, 0, 0, today.Location())
	case "来年":
		return time.Date(y+1, time.January, 1, 0, 0, 0, 0, today.Location())
	}
	return today
}

// relEnd is the last day 今週まで, 来月いっぱい, 年内… name.
func relEnd(today time.Time, word string) time.Time {
	y, m, d := today.Date()
	sunday := d + (7-int(today.Weekday()))%7
	at := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, today.Location()) }
	switch word {
	case "今週":
		return at(y, m, sunday)
	case "来週":
		return at(y, m, sunday+7)
	case "今月":
		return at(y, m+1, 0)
	case "来月":
		return at(y, m+2, 0)
	case "再来月":
		return at(y, m+3, 0)
	case "来年":
		return at(y+1, time.December, 31)
	}
	return at(y, time.December, 31)
}

func (p *reading) jaWeekdays() error {
	if m := jaBadDay.FindStringSubmatch(p.s); m != nil {
		return fmt.Errorf("「%s曜」は曜日として読めません（例: 毎週月曜と木曜、毎週月・木）", m[1])
	}
	if m := p.take(jaNth); m != nil {
		if err := p.setNth(atoi(m[1]), jaWeekdays[m[2]]); err != nil {
			return err
		}
		if jaOtherNth.MatchString(p.s) {
			return errors.New("第N曜日が二つあります: 一つずつ登録してください（例: 毎月第2火曜）")
		}
	} else if m := p.take(jaLast); m != nil {
		if err := p.setNth(-1, jaWeekdays[m[1]]); err != nil {
			return err
		}
	}
	if m := p.take(jaEveryWd); m != nil {
		// 毎月曜 is every Monday, not every month.
		p.addUnit(Weekly, 1, m[0], "")
		p.days = append(p.days, jaWeekdays[m[1]])
	}
	p.jaLists(jaRange, true)
	p.jaLists(jaList, false)
	for _, loc := range jaSatSun.FindAllStringSubmatchIndex(p.s, -1) {
		if loc[2] < 0 {
			// 今週の土日 is one weekend; 土日 alone is every one.
			p.addUnit(Weekly, 1, "土日", "")
			p.days = append(p.days, time.Saturday, time.Sunday)
			p.blank(loc[0], loc[1])
			break
		}
	}
	if m := p.take(jaWeekend); m != nil {
		p.addUnit(Weekly, 1, m[0], "")
		p.days = append(p.days, time.Saturday, time.Sunday)
	}
	if m := p.take(jaWorkday); m != nil {
		p.addUnit(Weekly, 1, "平日", "")
		p.days = append(p.days, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday)
		p.weekdays = true
	}
	return nil
}

// jaLists reads lists (月・木, 月曜と木曜, 月木) or ranges (月〜金) of days of
// the week. A list counts when a day in it is written with 曜 or it
// follows 毎週 or 隔週: 月 alone is more often a month, 日 a day.
func (p *reading) jaLists(re *regexp.Regexp, isRange bool) {
	matches := re.FindAllStringIndex(p.s, -1)
	for i := len(matches) - 1; i >= 0; i-- {
		start, end := matches[i][0], matches[i][1]
		if start > 0 && p.s[start-1] >= '0' && p.s[start-1] <= '9' {
			continue // 3月: a month
		}
		anchored := jaWeekly.MatchString(p.s[:start])
		items := jaItem.FindAllStringSubmatchIndex(p.s[start:end], -1)
		withYo := false
		for _, it := range items {
			withYo = withYo || it[4] >= 0
		}
		if !anchored && !withYo {
			continue
		}
		if withYo && !isRange {
			// 月曜と日記: what follows the last day written with 曜 is
			// not a day.
			for len(items) > 0 && items[len(items)-1][4] < 0 {
				items = items[:len(items)-1]
			}
			end = start + items[len(items)-1][1]
		}
		var days []time.Weekday
		for _, it := range items {
			days = append(days, jaWeekdays[p.s[start+it[2]:start+it[3]]])
		}
		if isRange {
			days = dayRange(days[0], days[len(days)-1])
		}
		if ex := jaExcept.FindStringIndex(p.s[end:]); ex != nil {
			// 日曜は除く, 水曜以外: days left out of the rest.
			p.notDays = append(p.notDays, days...)
			p.blank(start, end+ex[1])
			continue
		}
		if isRange {
			p.units = append(p.units, unit{freq: Weekly, n: 1, word: p.s[start:end], weak: true})
		}
		p.days = append(p.days, days...)
		p.blank(start, end)
	}
}

// dayRange is the days from a to b, through the weekend when b comes
// before a (金〜月).
func dayRange(a, b time.Weekday) []time.Weekday {
	days := []time.Weekday{a}
	for d := a; d != b; {
		d = (d + 1) % 7
		days = append(days, d)
	}
	return days
}

func (p *reading) jaUnits() error {
	if m := p.take(jaMinutes); m != nil {
		p.addUnit(Minutely, atoi(m[1]), m[0], "")
	}
	if m := p.take(jaHours); m != nil {
		p.addUnit(Hourly, atoi(m[1]), m[0], "")
	}
	if m := p.take(jaEveryMin); m != nil {
		p.addUnit(Minutely, 1, m[0], "")
	}
	if m := p.take(jaHourly); m != nil {
		p.addUnit(Hourly, 1, m[0], "")
		if m[1] != "" {
			if err := p.setMinute(atoi(m[1])); err != nil {
				return err
			}
		}
	}
	// おき after a number of days, weeks or months skips that many
	// between (1日おき: every other day); after minutes and hours it is
	// the gap itself (30分おき: every 30 minutes).
	skip := func(n int, word string) int {
		if word == "おき" {
			return n + 1
		}
		return n
	}
	if m := p.take(jaEveryDays); m != nil {
		p.addUnit(Daily, skip(atoi(m[1]), m[2]), m[0], "")
	}
	if m := p.take(jaWeeks); m != nil {
		p.addUnit(Weekly, skip(atoi(m[1]), m[2]), m[0], "")
	}
	if m := p.take(jaMonths); m != nil {
		p.addUnit(Monthly, skip(atoi(m[1]), m[2]), m[0], "")
	}
	if m := p.take(jaYears); m != nil {
		p.addUnit(Yearly, skip(atoi(m[1]), m[2]), m[0], "")
	}
	if m := p.take(jaMonthEnd); m != nil {
		p.addUnit(Monthly, 1, m[0], "")
		p.monthDays = append(p.monthDays, -1)
	}
	for m := p.take(jaSingleUnit); m != nil; m = p.take(jaSingleUnit) {
		u := map[string]unit{
			"毎週": {freq: Weekly, n: 1}, "隔週": {freq: Weekly, n: 2},
			"毎月": {freq: Monthly, n: 1}, "隔月": {freq: Monthly, n: 2},
			"毎年": {freq: Yearly, n: 1}, "隔年": {freq: Yearly, n: 2},
			"隔日": {freq: Daily, n: 2},
		}[m[0]]
		p.addUnit(u.freq, u.n, m[0], "")
	}
	for m := p.take(jaDaily); m != nil; m = p.take(jaDaily) {
		period := map[string]string{"毎朝": periodMorning, "毎晩": periodNight, "毎夜": periodNight, "毎夕": periodEvening, "毎昼": periodNoon}[m[0]]
		p.addUnit(Daily, 1, m[0], period)
	}
	for _, u := range p.units {
		if u.n < 1 {
			return fmt.Errorf("「%s」の間隔が読めません（例: 2週間ごと、30分ごと）", u.word)
		}
	}
	return nil
}

// jaDaysOf reads the days a monthly or yearly rule falls on.
func (p *reading) jaDaysOf() error {
	switch p.freq() {
	case Monthly:
		return p.monthDaysBy(jaLastDay, jaMonthDay)
	case Yearly:
		if m := p.take(jaYearDay); m != nil {
			mo, d := atoi(m[1]), atoi(m[2])
			switch {
			case m[3] != "":
				d = -1
			case m[4] != "":
				mo, d = atoi(m[4]), atoi(m[5])
			}
			return p.setDate(mo, d)
		}
	}
	return nil
}

func (p *reading) jaClock() error {
	if m := jaTimesADay.FindString(p.s); m != "" {
		return fmt.Errorf("「%s」は一日に二回です: 時刻ごとに分けて登録してください（例: 毎朝7時、毎晩21時）", m)
	}
	u, _ := p.mergeUnits()
	// The period said just before the time (夜9時, 朝の7時), else the
	// unit's (毎晩9時).
	period := func(word string) string {
		if word == "" {
			return u.period
		}
		return jaPeriods[word]
	}
	for _, m := range jaClock.FindAllStringSubmatch(p.s, -1) {
		if m[3] != "" {
			continue // N時間: a length of time
		}
		mm := atoi(m[5])
		if m[4] != "" {
			mm = 30
		}
		if err := p.setClock(withPeriod(atoi(m[2]), period(m[1])), mm, m[0]); err != nil {
			return err
		}
	}
	for _, m := range jaColon.FindAllStringSubmatch(p.s, -1) {
		h := atoi(m[2])
		switch {
		case m[4] != "":
			h = withPeriod(h, map[string]string{"am": periodAM, "pm": periodAfternoon}[m[4]])
		default:
			h = withPeriod(h, period(m[1]))
		}
		if err := p.setClock(h, atoi(m[3]), m[0]); err != nil {
			return err
		}
	}
	if strings.Contains(p.s, "正午") {
		if err := p.setClock(12, 0, "正午"); err != nil {
			return err
		}
	}
	if !p.clock {
		if m := jaPeriod.FindString(p.s); m != "" {
			p.period = jaPeriods[m]
		}
		if u.freq == Hourly {
			if m := jaMinute.FindStringSubmatch(p.s); m != nil {
				return p.setMinute(atoi(m[1]))
			}
		}
	}
	return nil
}
