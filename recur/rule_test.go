package recur

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	tue := []time.Weekday{time.Tuesday}
	cases := []struct {
		name string
		rule Rule
		err  string // "" when it is accepted
	}{
		{"every 15 minutes", Rule{Freq: Minutely, Interval: 15}, ""},
		{"every minute", Rule{Freq: Minutely}, "1分ごとは短すぎます: 繰り返しは15分ごとより頻繁にはできません（例: 15分ごと、1時間ごと）"},
		{"every 10 minutes", Rule{Freq: Minutely, Interval: 10}, "10分ごとは短すぎます: 繰り返しは15分ごとより頻繁にはできません（例: 15分ごと、1時間ごと）"},
		{"毎年2月30日", Rule{Freq: Yearly, Month: time.February, MonthDays: []int{30}, Hour: 9}, "2月30日は暦にないので、一度も来ません"},
		{"毎年2月29日", Rule{Freq: Yearly, Month: time.February, MonthDays: []int{29}, Hour: 9}, ""},
		{"毎年2月29日 until a year with none", Rule{Freq: Yearly, Month: time.February, MonthDays: []int{29}, Hour: 9, Until: day(2027, 12, 31)}, "2月29日は2027年12月31日までに来ません"},
		{"until before start", Rule{Freq: Daily, Hour: 9, Start: day(2027, 4, 1), Until: day(2027, 3, 1)}, "終わりの日（2027年3月1日）が始まりの日（2027年4月1日）より前です"},
		{"until already past", Rule{Freq: Daily, Hour: 9, Until: day(2026, 3, 31)}, "終わりの日（2026年3月31日）はもう過ぎています"},
		{"until today is still due", Rule{Freq: Daily, Hour: 21, Until: day(2026, 12, 2)}, ""},
		{"until today, the time gone", Rule{Freq: Daily, Hour: 9, Until: day(2026, 12, 2)}, "2026年12月2日までに一度も来ません"},
		{"count used up", Rule{Freq: Daily, Hour: 9, Start: day(2026, 1, 1), Count: 10}, "10回はもう終わっています"},
		{"count 0 after start is no limit", Rule{Freq: Daily, Hour: 9, Start: day(2026, 1, 1)}, ""},
		{"毎月31日 until February only", Rule{Freq: Monthly, MonthDays: []int{31}, Hour: 9, Start: day(2027, 2, 1), Until: day(2027, 2, 28)}, "2027年2月28日までに一度も来ません"},
		{"every day a holiday", Rule{Freq: Yearly, Month: time.January, MonthDays: []int{1}, Hour: 9, SkipHolidays: true}, "この先の回はすべて祝日に当たるので、一度も通知されません"},
		{"no unit", Rule{Hour: 9}, `繰り返しの単位 "" が分かりません（minutely, hourly, daily, weekly, monthly, yearly のどれか）`},
		{"24:00", Rule{Freq: Daily, Hour: 24}, "時刻 24:00 はありません（0:00〜23:59）"},
		{"negative interval", Rule{Freq: Daily, Interval: -1}, "間隔 -1 は使えません（1〜999）"},
		{"too many times", Rule{Freq: Daily, Count: 5000}, "回数 5000 は使えません（1〜1000回、0 は制限なし）"},
		{"monthly without a day", Rule{Freq: Monthly, Hour: 9}, "毎月の何日か分かりません（例: 毎月1日、毎月末、毎月第2火曜）"},
		{"day 0", Rule{Freq: Monthly, MonthDays: []int{0}}, "0日はありません（1〜31日、または月末）"},
		{"weekdays on a daily rule", Rule{Freq: Daily, Weekdays: tue}, "曜日は毎週の繰り返しか、毎月の第N曜日でだけ使えます（例: 毎週月曜、毎月第2火曜）"},
		{"a weekday 7", Rule{Freq: Weekly, Weekdays: []time.Weekday{7}}, "曜日 7 はありません"},
		{"6th Tuesday", Rule{Freq: Monthly, Nth: 6, Weekdays: tue}, "第6曜日はありません（第1〜第5か最終）"},
		{"Nth without a weekday", Rule{Freq: Monthly, Nth: 2}, "第N曜日には曜日を一つだけ指定してください（例: 毎月第2火曜）"},
		{"Nth and a day", Rule{Freq: Monthly, Nth: 2, Weekdays: tue, MonthDays: []int{1}}, "毎月の日にちと第N曜日は一緒に指定できません"},
		{"Nth on a weekly rule", Rule{Freq: Weekly, Nth: 2, Weekdays: tue}, "第N曜日は毎月の繰り返しでだけ使えます（例: 毎月第2火曜）"},
		{"yearly without a month", Rule{Freq: Yearly, MonthDays: []int{14}}, "毎年の何月何日か分かりません（例: 毎年3月14日）"},
		{"a month on a monthly rule", Rule{Freq: Monthly, Month: time.March, MonthDays: []int{1}}, "月は毎年の繰り返しでだけ使えます（例: 毎年3月14日）"},
		{"days on a weekly rule", Rule{Freq: Weekly, MonthDays: []int{1}}, "日にちは毎月か毎年の繰り返しでだけ使えます（例: 毎月1日、毎年3月14日）"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.rule.Validate(parseNow, tokyo)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Errorf("Validate = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	base := Rule{Freq: Weekly, Weekdays: monThu, Hour: 7}
	cases := []struct {
		name string
		a, b Rule
		want []string
	}{
		{"weekdays in another order", base, Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Thursday, time.Monday, time.Monday}, Hour: 7}, nil},
		{"the same start day in other zones", Rule{Freq: Daily, Start: day(2026, 12, 10)}, Rule{Freq: Daily, Start: time.Date(2026, 12, 10, 0, 0, 0, 0, newYork)}, nil},
		{"days and time", base, Rule{Freq: Weekly, Weekdays: []time.Weekday{time.Monday, time.Friday}, Hour: 8}, []string{"曜日: 月・木 / 月・金", "時刻: 7:00 / 8:00"}},
		{"every other week", base, Rule{Freq: Weekly, Interval: 2, Weekdays: monThu, Hour: 7}, []string{"間隔: 毎週 / 隔週"}},
		{"monthly instead of every other week", Rule{Freq: Weekly, Interval: 2, Weekdays: monThu, Hour: 7}, Rule{Freq: Monthly, MonthDays: []int{1}, Hour: 7}, []string{"頻度: 隔週 / 毎月", "曜日: 月・木 / なし", "日: なし / 1日"}},
		{"monthly instead", base, Rule{Freq: Monthly, MonthDays: []int{1}, Hour: 7}, []string{"頻度: 毎週 / 毎月", "曜日: 月・木 / なし", "日: なし / 1日"}},
		{"Nth", Rule{Freq: Monthly, Nth: 2, Weekdays: []time.Weekday{time.Tuesday}}, Rule{Freq: Monthly, Nth: -1, Weekdays: []time.Weekday{time.Tuesday}}, []string{"第何週: 第2 / 最終"}},
		{"holidays, end, count", base, Rule{Freq: Weekly, Weekdays: monThu, Hour: 7, SkipHolidays: true, Until: day(2027, 3, 31), Count: 10}, []string{"終了: なし / 2027年3月31日", "回数: 制限なし / 10回", "祝日: 含む / 除く"}},
		{"start", base, Rule{Freq: Weekly, Weekdays: monThu, Hour: 7, Start: day(2026, 12, 7)}, []string{"開始: 今から / 2026年12月7日"}},
		{"yearly month", Rule{Freq: Yearly, Month: time.March, MonthDays: []int{14}}, Rule{Freq: Yearly, Month: time.April, MonthDays: []int{14}}, []string{"月: 3月 / 4月"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Diff(tc.a, tc.b)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Diff = %q, want %q", got, tc.want)
			}
			if tc.a.Equal(tc.b) != (len(tc.want) == 0) {
				t.Errorf("Equal = %v with Diff %q", tc.a.Equal(tc.b), got)
			}
		})
	}
}

// TestDiffAgainstProposal: the check issue 24 makes, the model's structured
// proposal against the reading of the user's words.
func TestDiffAgainstProposal(t *testing.T) {
	read, err := Parse("毎週月曜と木曜の朝7時、祝日は除く", parseNow, tokyo)
	if err != nil {
		t.Fatal(err)
	}
	agrees := Rule{Freq: Weekly, Weekdays: []time.Weekday{time.Thursday, time.Monday}, Hour: 7, SkipHolidays: true}
	if !read.Equal(agrees) {
		t.Errorf("the same schedule differs: %q", Diff(read, agrees))
	}
	wrong := Rule{Freq: Weekly, Weekdays: []time.Weekday{time.Monday, time.Tuesday}, Hour: 19}
	want := []string{"曜日: 月・木 / 月・火", "時刻: 7:00 / 19:00", "祝日: 除く / 含む"}
	if got := Diff(read, wrong); !slices.Equal(got, want) {
		t.Errorf("Diff = %q, want %q", got, want)
	}
}

func TestDescribe(t *testing.T) {
	cases := []struct {
		rule Rule
		want string
	}{
		{Rule{Freq: Weekly, Weekdays: monThu, Hour: 7, SkipHolidays: true}, "毎週 月・木 7:00、祝日は除く"},
		{Rule{Freq: Weekly, Weekdays: monFriD, Hour: 9, SkipHolidays: true}, "平日 9:00"},
		{Rule{Freq: Weekly, Weekdays: monFriD, Hour: 9}, "平日（祝日も） 9:00"},
		{Rule{Freq: Monthly, Nth: 2, Weekdays: []time.Weekday{time.Tuesday}, Hour: 19, Minute: 30}, "毎月 第2火曜 19:30"},
		{Rule{Freq: Monthly, Nth: -1, Weekdays: []time.Weekday{time.Friday}, Hour: 18}, "毎月 最終金曜 18:00"},
		{Rule{Freq: Weekly, Interval: 2, Weekdays: []time.Weekday{time.Saturday}, Hour: 10}, "隔週 土 10:00"},
		{Rule{Freq: Weekly, Interval: 3, Hour: 9}, "3週ごと 9:00"},
		{Rule{Freq: Weekly, Weekdays: satSun, Hour: 10}, "毎週 土・日 10:00"},
		{Rule{Freq: Monthly, MonthDays: []int{-1}, Hour: 21}, "毎月末 21:00"},
		{Rule{Freq: Monthly, MonthDays: []int{15, 1}, Hour: 9}, "毎月 1日・15日 9:00"},
		{Rule{Freq: Monthly, Interval: 2, MonthDays: []int{-1}, Hour: 21}, "隔月 月末 21:00"},
		{Rule{Freq: Monthly, Interval: 3, MonthDays: []int{1}, Hour: 9}, "3か月ごと 1日 9:00"},
		{Rule{Freq: Yearly, Month: time.March, MonthDays: []int{14}, Hour: 8}, "毎年 3月14日 8:00"},
		{Rule{Freq: Daily, Hour: 7, Minute: 5}, "毎日 7:05"},
		{Rule{Freq: Daily, Interval: 2, Hour: 8}, "隔日 8:00"},
		{Rule{Freq: Hourly}, "毎時 0分"},
		{Rule{Freq: Hourly, Minute: 15}, "毎時 15分"},
		{Rule{Freq: Hourly, Interval: 3}, "3時間ごと 0:00から"},
		{Rule{Freq: Minutely, Interval: 30}, "30分ごと"},
		{Rule{Freq: Minutely, Interval: 90, Hour: 9}, "90分ごと 9:00から"},
		{Rule{Freq: Daily, Hour: 7, Until: day(2027, 3, 31)}, "毎日 7:00、3月31日まで"},
		{Rule{Freq: Daily, Hour: 7, Count: 10}, "毎日 7:00、10回"},
		{Rule{Freq: Monthly, MonthDays: []int{1}, Hour: 9, SkipHolidays: true, Start: day(2026, 12, 10), Until: day(2027, 3, 31), Count: 3}, "毎月 1日 9:00、祝日は除く、12月10日から、3月31日まで、3回"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.rule.Describe(); got != tc.want {
				t.Errorf("Describe = %q, want %q", got, tc.want)
			}
		})
	}
	// A rule too broken to plan still describes without panicking.
	_ = Rule{Freq: Monthly, Nth: 2}.Describe()
	_ = Rule{Freq: Yearly}.Describe()
}

func TestRRULE(t *testing.T) {
	cases := []struct {
		rule Rule
		loc  *time.Location
		want string
	}{
		{Rule{Freq: Weekly, Weekdays: []time.Weekday{time.Thursday, time.Monday}, Hour: 7, Start: day(2026, 12, 3)}, tokyo,
			"DTSTART;TZID=Asia/Tokyo:20261203T070000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TH"},
		{Rule{Freq: Monthly, Nth: 2, Weekdays: []time.Weekday{time.Tuesday}, Hour: 19, Minute: 30, Start: day(2026, 12, 2)}, tokyo,
			"DTSTART;TZID=Asia/Tokyo:20261202T193000\nRRULE:FREQ=MONTHLY;BYDAY=2TU"},
		{Rule{Freq: Monthly, Nth: -1, Weekdays: []time.Weekday{time.Friday}, Hour: 18, Start: day(2026, 12, 2), Until: day(2027, 3, 31)}, tokyo,
			"DTSTART;TZID=Asia/Tokyo:20261202T180000\nRRULE:FREQ=MONTHLY;UNTIL=20270331T145959Z;BYDAY=-1FR"},
		{Rule{Freq: Yearly, Interval: 1, Month: time.March, MonthDays: []int{14}, Hour: 8, Count: 5, Start: day(2026, 12, 2)}, tokyo,
			"DTSTART;TZID=Asia/Tokyo:20261202T080000\nRRULE:FREQ=YEARLY;COUNT=5;BYMONTH=3;BYMONTHDAY=14"},
		{Rule{Freq: Weekly, Interval: 2, Weekdays: []time.Weekday{time.Saturday}, Hour: 10, Start: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}, time.UTC,
			"DTSTART:20261202T100000Z\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=SA"},
		{Rule{Freq: Daily, Hour: 7, Until: day(2027, 3, 31)}, tokyo,
			"RRULE:FREQ=DAILY;UNTIL=20270331T235959;BYHOUR=7;BYMINUTE=0"},
		{Rule{Freq: Hourly, Minute: 15}, tokyo, "RRULE:FREQ=HOURLY;BYMINUTE=15"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			got := tc.rule.RRULE(tc.loc)
			if got != tc.want {
				t.Errorf("RRULE = %q, want %q", got, tc.want)
			}
			back, _, err := FromRRULE(got, false)
			if err != nil || !back.Equal(tc.rule) {
				t.Errorf("FromRRULE = %+v, %v: %q", back, err, Diff(tc.rule, back))
			}
		})
	}
}

func TestFromRRULE(t *testing.T) {
	r, loc, err := FromRRULE("DTSTART;TZID=America/New_York:20270314T023000\r\nRRULE:FREQ=DAILY;UNTIL=20270401T035959Z\n", true)
	if err != nil {
		t.Fatal(err)
	}
	want := Rule{Freq: Daily, Hour: 2, Minute: 30, Start: time.Date(2027, 3, 14, 0, 0, 0, 0, newYork), Until: time.Date(2027, 3, 31, 0, 0, 0, 0, newYork), SkipHolidays: true}
	if loc.String() != "America/New_York" || !r.Equal(want) {
		t.Errorf("FromRRULE = %+v in %v: %q", r, loc, Diff(want, r))
	}

	for _, text := range []string{
		"",
		"FREQ=DAILY",
		"RRULE:FREQ=SECONDLY",
		"RRULE:FREQ=MONTHLY;BYSETPOS=1;BYDAY=MO",
		"RRULE:FREQ=YEARLY;BYMONTH=1,2",
		"RRULE:FREQ=WEEKLY;BYDAY=2MO",
		"RRULE:FREQ=DAILY;WKST=SU",
		"RRULE:FREQ=DAILY;BYHOUR=7,19",
		"DTSTART;TZID=Nowhere/Atlantis:20261203T070000\nRRULE:FREQ=DAILY",
		"DTSTART:20261203T070000\nRRULE:FREQ=DAILY",
		"DTSTART;TZID=Asia/Tokyo:2026-12-03\nRRULE:FREQ=DAILY",
		"EXDATE:20261203T070000Z\nRRULE:FREQ=DAILY",
		"DTSTART:20261203T070000Z\nRRULE:FREQ=DAILY\nRRULE:FREQ=WEEKLY",
	} {
		if _, _, err := FromRRULE(text, false); err == nil || !strings.HasPrefix(err.Error(), "read rrule ") {
			t.Errorf("FromRRULE(%q) = %v, want a read rrule error", text, err)
		}
	}
}
