package recur

import (
	"errors"
	"slices"
	"testing"
	"time"
)

var tokyo = mustZone("Asia/Tokyo")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// parseNow is when the parse tests speak: Wednesday 2 December 2026, 10:00
// in Tokyo.
var parseNow = time.Date(2026, 12, 2, 10, 0, 0, 0, tokyo)

func day(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, tokyo)
}

var (
	monThu  = []time.Weekday{time.Monday, time.Thursday}
	monFriD = []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
	satSun  = []time.Weekday{time.Saturday, time.Sunday}
)

type parseCase struct {
	words string
	want  Rule
	err   string // the whole message, when Parse refuses
}

var parseCases = []parseCase{
	// Daily, and the time of day.
	{words: "毎週月曜と木曜の朝7時", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monThu, Hour: 7}},
	{words: "毎日7時", want: Rule{Freq: Daily, Interval: 1, Hour: 7}},
	{words: "毎朝", want: Rule{Freq: Daily, Interval: 1, Hour: 7}},
	{words: "毎晩", want: Rule{Freq: Daily, Interval: 1, Hour: 21}},
	{words: "毎朝8時に薬を飲む", want: Rule{Freq: Daily, Interval: 1, Hour: 8}},
	{words: "毎日朝7時半", want: Rule{Freq: Daily, Interval: 1, Hour: 7, Minute: 30}},
	{words: "毎日午後3時", want: Rule{Freq: Daily, Interval: 1, Hour: 15}},
	{words: "毎日15:30", want: Rule{Freq: Daily, Interval: 1, Hour: 15, Minute: 30}},
	{words: "毎日19時", want: Rule{Freq: Daily, Interval: 1, Hour: 19}},
	{words: "毎晩9時", want: Rule{Freq: Daily, Interval: 1, Hour: 21}},
	{words: "毎日七時", want: Rule{Freq: Daily, Interval: 1, Hour: 7}},
	{words: "毎日１９時４５分", want: Rule{Freq: Daily, Interval: 1, Hour: 19, Minute: 45}},
	{words: "1日おきに8時", want: Rule{Freq: Daily, Interval: 2, Hour: 8}},
	// Weekly.
	{words: "毎週月・木", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monThu, Hour: 9}},
	{words: "毎週月曜日と木曜日 7時", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monThu, Hour: 7}},
	{words: "毎週月木の9時にゴミ出し", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monThu, Hour: 9}},
	{words: "毎週火曜", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Tuesday}, Hour: 9}},
	{words: "毎月曜日の朝", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Monday}, Hour: 7}},
	{words: "毎週月〜金 8時", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 8}},
	{words: "平日9時", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 9, SkipHolidays: true}},
	{words: "平日の朝", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 7, SkipHolidays: true}},
	{words: "平日の朝7時、祝日も", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 7}},
	{words: "土日10時", want: Rule{Freq: Weekly, Interval: 1, Weekdays: satSun, Hour: 10}},
	{words: "毎週末の朝8時", want: Rule{Freq: Weekly, Interval: 1, Weekdays: satSun, Hour: 8}},
	{words: "隔週土曜10時", want: Rule{Freq: Weekly, Interval: 2, Weekdays: []time.Weekday{time.Saturday}, Hour: 10}},
	{words: "2週間ごとの土曜", want: Rule{Freq: Weekly, Interval: 2, Weekdays: []time.Weekday{time.Saturday}, Hour: 9}},
	{words: "3週ごとに月曜8時", want: Rule{Freq: Weekly, Interval: 3, Weekdays: []time.Weekday{time.Monday}, Hour: 8}},
	// Monthly and yearly.
	{words: "毎月1日", want: Rule{Freq: Monthly, Interval: 1, MonthDays: []int{1}, Hour: 9}},
	{words: "毎月1日と15日の9時", want: Rule{Freq: Monthly, Interval: 1, MonthDays: []int{1, 15}, Hour: 9}},
	{words: "毎月末 21時", want: Rule{Freq: Monthly, Interval: 1, MonthDays: []int{-1}, Hour: 21}},
	{words: "毎月第2火曜日 19時半", want: Rule{Freq: Monthly, Interval: 1, Weekdays: []time.Weekday{time.Tuesday}, Nth: 2, Hour: 19, Minute: 30}},
	{words: "毎月第二火曜", want: Rule{Freq: Monthly, Interval: 1, Weekdays: []time.Weekday{time.Tuesday}, Nth: 2, Hour: 9}},
	{words: "毎月最終金曜 18時", want: Rule{Freq: Monthly, Interval: 1, Weekdays: []time.Weekday{time.Friday}, Nth: -1, Hour: 18}},
	{words: "隔月1日", want: Rule{Freq: Monthly, Interval: 2, MonthDays: []int{1}, Hour: 9}},
	{words: "毎年3月14日 8時", want: Rule{Freq: Yearly, Interval: 1, Month: time.March, MonthDays: []int{14}, Hour: 8}},
	// Minutes and hours.
	{words: "30分ごと", want: Rule{Freq: Minutely, Interval: 30}},
	{words: "15分おきに水を飲む", want: Rule{Freq: Minutely, Interval: 15}},
	{words: "2時間ごと", want: Rule{Freq: Hourly, Interval: 2}},
	{words: "毎時", want: Rule{Freq: Hourly, Interval: 1}},
	{words: "毎時30分", want: Rule{Freq: Hourly, Interval: 1, Minute: 30}},
	// Start, end, count, holidays.
	{words: "来週から毎週月曜9時", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Monday}, Hour: 9, Start: day(2026, 12, 7)}},
	{words: "12月10日から毎日7時", want: Rule{Freq: Daily, Interval: 1, Hour: 7, Start: day(2026, 12, 10)}},
	{words: "毎日7時、3月まで", want: Rule{Freq: Daily, Interval: 1, Hour: 7, Until: day(2027, 3, 31)}},
	{words: "毎日7時 2027年3月31日まで", want: Rule{Freq: Daily, Interval: 1, Hour: 7, Until: day(2027, 3, 31)}},
	{words: "1月5日から3月まで毎週月曜", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Monday}, Hour: 9, Start: day(2027, 1, 5), Until: day(2027, 3, 31)}},
	{words: "毎日7時 10回", want: Rule{Freq: Daily, Interval: 1, Hour: 7, Count: 10}},
	{words: "毎月1日9時 祝日は除く", want: Rule{Freq: Monthly, Interval: 1, MonthDays: []int{1}, Hour: 9, SkipHolidays: true}},
	{words: "毎週月曜9時、祝日を除く", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Monday}, Hour: 9, SkipHolidays: true}},
	{words: "毎日8時 祝日はお休み", want: Rule{Freq: Daily, Interval: 1, Hour: 8, SkipHolidays: true}},
	{words: "毎日9時 祝日以外", want: Rule{Freq: Daily, Interval: 1, Hour: 9, SkipHolidays: true}},
	{words: "毎日9時 今月いっぱい", want: Rule{Freq: Daily, Interval: 1, Hour: 9, Until: day(2026, 12, 31)}},
	{words: "毎週月曜 年内", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Monday}, Hour: 9, Until: day(2026, 12, 31)}},
	{words: "2027年1月5日から毎日", want: Rule{Freq: Daily, Interval: 1, Hour: 9, Start: day(2027, 1, 5)}},
	{words: "毎日8時 十回", want: Rule{Freq: Daily, Interval: 1, Hour: 8, Count: 10}},
	{words: "毎日正午", want: Rule{Freq: Daily, Interval: 1, Hour: 12}},
	{words: "毎日夕方", want: Rule{Freq: Daily, Interval: 1, Hour: 18}},
	{words: "毎週日曜日の夜10時", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Sunday}, Hour: 22}},
	{words: "月曜から金曜の8時", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 8}},
	{words: "隔週の月曜と木曜", want: Rule{Freq: Weekly, Interval: 2, Weekdays: monThu, Hour: 9}},
	{words: "毎年3月末 9時", want: Rule{Freq: Yearly, Interval: 1, Month: time.March, MonthDays: []int{-1}, Hour: 9}},
	{words: "毎日9時から30分ごと", want: Rule{Freq: Minutely, Interval: 30, Hour: 9}},
	{words: "毎朝7時、土日は除く", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 7}},
	{words: "毎日9時 土日祝は休み", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 9, SkipHolidays: true}},
	{words: "毎日7時、日曜は除く", want: Rule{Freq: Weekly, Interval: 1, Weekdays: append(slices.Clone(monFriD), time.Saturday), Hour: 7}},
	{words: "平日9時 水曜以外", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Monday, time.Tuesday, time.Thursday, time.Friday}, Hour: 9, SkipHolidays: true}},
	// Japanese the reader refuses.
	{words: "明日の9時", err: ErrNotRepeating.Error()},
	{words: "来週の土日", err: ErrNotRepeating.Error()},
	{words: "毎日7時と19時", err: "時刻が二つあります（7:00 と 19:00）: 時刻ごとに分けて登録してください"},
	{words: "毎日朝晩", err: "「朝晩」は一日に二回です: 時刻ごとに分けて登録してください（例: 毎朝7時、毎晩21時）"},
	{words: "1日2回", err: "「1日2回」のように一度に何回もは読めません: 時刻ごとに分けて登録してください（例: 毎日7時、毎日19時）"},
	{words: "毎日25時", err: "時刻「25時」が読めません（例: 7時半、19:30、午後3時）"},
	{words: "毎月32日", err: "32日はありません（1〜31日、または月末。例: 毎月1日 9時）"},
	{words: "毎週 ぬ曜日", err: "「ぬ曜」は曜日として読めません（例: 毎週月曜と木曜、毎週月・木）"},
	{words: "毎月", err: "毎月の何日か読めません（例: 毎月1日 9時、毎月末 21時、毎月第2火曜 19時）"},
	{words: "毎年", err: "毎年の何月何日か読めません（例: 毎年3月14日 8時）"},
	{words: "毎月第2・第4火曜", err: "第N曜日が二つあります: 一つずつ登録してください（例: 毎月第2火曜）"},
	{words: "毎月第6火曜", err: "第6火曜はありません（第1〜第5か最終。例: 毎月第2火曜）"},
	{words: "毎週と毎月", err: "繰り返しが二通りに読めます（「毎週」と「毎月」）: どちらか一つにしてください"},
	{words: "毎日7時 2月30日から", err: "2027年2月30日はありません"},
	{words: "毎月1日 土日は除く", err: "曜日を除けるのは毎日か毎週の繰り返しだけです（例: 毎日7時、土日は除く）"},
	{words: "毎日 月曜から日曜は休み", err: "すべての曜日が除かれています（例: 毎日7時、土日は除く）"},

	// English.
	{words: "every day at 7", want: Rule{Freq: Daily, Interval: 1, Hour: 7}},
	{words: "every morning", want: Rule{Freq: Daily, Interval: 1, Hour: 7}},
	{words: "every evening", want: Rule{Freq: Daily, Interval: 1, Hour: 18}},
	{words: "every night at 10", want: Rule{Freq: Daily, Interval: 1, Hour: 22}},
	{words: "every 3 days at noon", want: Rule{Freq: Daily, Interval: 3, Hour: 12}},
	{words: "every Monday and Thursday at 8", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monThu, Hour: 8}},
	{words: "Mondays at 9", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Monday}, Hour: 9}},
	{words: "weekdays at 9", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 9, SkipHolidays: true}},
	{words: "weekdays at 9 including holidays", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 9}},
	{words: "Monday to Friday at 8, skip holidays", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 8, SkipHolidays: true}},
	{words: "every weekend", want: Rule{Freq: Weekly, Interval: 1, Weekdays: satSun, Hour: 9}},
	{words: "every other week on Saturday at 10am", want: Rule{Freq: Weekly, Interval: 2, Weekdays: []time.Weekday{time.Saturday}, Hour: 10}},
	{words: "every 2 weeks", want: Rule{Freq: Weekly, Interval: 2, Hour: 9}},
	{words: "on the 1st of every month", want: Rule{Freq: Monthly, Interval: 1, MonthDays: []int{1}, Hour: 9}},
	{words: "the last day of every month", want: Rule{Freq: Monthly, Interval: 1, MonthDays: []int{-1}, Hour: 9}},
	{words: "the second Tuesday of every month at 7:30pm", want: Rule{Freq: Monthly, Interval: 1, Weekdays: []time.Weekday{time.Tuesday}, Nth: 2, Hour: 19, Minute: 30}},
	{words: "the last Friday of every month at 6pm", want: Rule{Freq: Monthly, Interval: 1, Weekdays: []time.Weekday{time.Friday}, Nth: -1, Hour: 18}},
	{words: "every year on March 14", want: Rule{Freq: Yearly, Interval: 1, Month: time.March, MonthDays: []int{14}, Hour: 9}},
	{words: "every March 14th at 8am", want: Rule{Freq: Yearly, Interval: 1, Month: time.March, MonthDays: []int{14}, Hour: 8}},
	{words: "every 30 minutes", want: Rule{Freq: Minutely, Interval: 30}},
	{words: "hourly", want: Rule{Freq: Hourly, Interval: 1}},
	{words: "every hour at :15", want: Rule{Freq: Hourly, Interval: 1, Minute: 15}},
	{words: "every day at 7 from next week", want: Rule{Freq: Daily, Interval: 1, Hour: 7, Start: day(2026, 12, 7)}},
	{words: "every Monday starting Dec 10", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Monday}, Hour: 9, Start: day(2026, 12, 10)}},
	{words: "daily at 8 until March", want: Rule{Freq: Daily, Interval: 1, Hour: 8, Until: day(2027, 3, 31)}},
	{words: "every day until 2027-03-31", want: Rule{Freq: Daily, Interval: 1, Hour: 9, Until: day(2027, 3, 31)}},
	{words: "every day at 9, 10 times", want: Rule{Freq: Daily, Interval: 1, Hour: 9, Count: 10}},
	{words: "every Monday except holidays", want: Rule{Freq: Weekly, Interval: 1, Weekdays: []time.Weekday{time.Monday}, Hour: 9, SkipHolidays: true}},
	{words: "every day through the end of the year", want: Rule{Freq: Daily, Interval: 1, Hour: 9, Until: day(2026, 12, 31)}},
	{words: "every day from 2027-01-05", want: Rule{Freq: Daily, Interval: 1, Hour: 9, Start: day(2027, 1, 5)}},
	{words: "every half hour", want: Rule{Freq: Minutely, Interval: 30}},
	{words: "every 3 months on the 1st", want: Rule{Freq: Monthly, Interval: 3, MonthDays: []int{1}, Hour: 9}},
	{words: "every day at midnight", want: Rule{Freq: Daily, Interval: 1}},
	{words: "every day at 8 in the evening", want: Rule{Freq: Daily, Interval: 1, Hour: 20}},
	{words: "biweekly on Friday", want: Rule{Freq: Weekly, Interval: 2, Weekdays: []time.Weekday{time.Friday}, Hour: 9}},
	{words: "nightly", want: Rule{Freq: Daily, Interval: 1, Hour: 21}},
	{words: "annually on March 14", want: Rule{Freq: Yearly, Interval: 1, Month: time.March, MonthDays: []int{14}, Hour: 9}},
	{words: "every other day at 6:45am", want: Rule{Freq: Daily, Interval: 2, Hour: 6, Minute: 45}},
	{words: "every day at 7 except weekends", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 7}},
	{words: "every day except weekends and holidays", want: Rule{Freq: Weekly, Interval: 1, Weekdays: monFriD, Hour: 9, SkipHolidays: true}},
	{words: "every day at 7 except Sundays", want: Rule{Freq: Weekly, Interval: 1, Weekdays: append(slices.Clone(monFriD), time.Saturday), Hour: 7}},
	// English the reader refuses.
	{words: "tomorrow at 9", err: ErrNotRepeating.Error()},
	{words: "twice a day", err: "「twice a day」のように一度に何回もは読めません: 時刻ごとに分けて登録してください（例: every day at 7, every day at 19）"},
	{words: "every day at 7 and 7:30", err: "時刻が二つあります（7:30 と 7:00）: 時刻ごとに分けて登録してください"},
	{words: "every day at 25:00", err: "時刻「25:00」が読めません（例: 7時半、19:30、午後3時）"},
	{words: "every month", err: "毎月の何日か読めません（例: 毎月1日 9時、毎月末 21時、毎月第2火曜 19時）"},
	{words: "every day starting February 30", err: "2027年2月30日はありません"},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.words, func(t *testing.T) {
			got, err := Parse(tc.words, parseNow, tokyo)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Parse error = %v, want %q (rule %+v)", err, tc.err, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !got.Equal(tc.want) {
				t.Fatalf("Parse = %+v\nwant    %+v\ndiff %q", got, tc.want, Diff(got, tc.want))
			}
			if err := got.Validate(parseNow, tokyo); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestParseNotRepeatingIsDistinguishable(t *testing.T) {
	for _, words := range []string{"明日の9時", "3日後", "tomorrow at 9", "来週の金曜"} {
		if _, err := Parse(words, parseNow, tokyo); !errors.Is(err, ErrNotRepeating) {
			t.Errorf("Parse(%q) = %v, want ErrNotRepeating", words, err)
		}
	}
	if _, err := Parse("毎日25時", parseNow, tokyo); errors.Is(err, ErrNotRepeating) {
		t.Error("an unreadable time reads as not repeating")
	}
}

// TestParseCount: there are enough cases in both languages.
func TestParseCount(t *testing.T) {
	ja, en := 0, 0
	for _, tc := range parseCases {
		if isJapanese(tc.words) {
			ja++
		} else {
			en++
		}
	}
	if ja < 25 || en < 25 {
		t.Errorf("%d Japanese and %d English cases; want at least 25 of each", ja, en)
	}
}

// TestParseRoundTrip: every rule Parse reads comes back Equal from its
// RRULE text, floating as read and anchored as stored.
func TestParseRoundTrip(t *testing.T) {
	for _, tc := range parseCases {
		if tc.err != "" {
			continue
		}
		t.Run(tc.words, func(t *testing.T) {
			r, err := Parse(tc.words, parseNow, tokyo)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []Rule{r, r.Anchor(parseNow, tokyo)} {
				if r.Start.IsZero() && (r.Freq == Minutely || r.Freq == Hourly) && (r.Hour != 0 || r.Freq == Minutely && r.Minute != 0) {
					continue // floating text cannot say where the count starts
				}
				text := r.RRULE(tokyo)
				back, loc, err := FromRRULE(text, r.SkipHolidays)
				if err != nil {
					t.Fatalf("FromRRULE(%q): %v", text, err)
				}
				if !back.Equal(r) {
					t.Errorf("%q read back as %+v: %q", text, back, Diff(r, back))
				}
				if !r.Start.IsZero() && loc.String() != "Asia/Tokyo" {
					t.Errorf("%q read back in %v", text, loc)
				}
			}
		})
	}
}
