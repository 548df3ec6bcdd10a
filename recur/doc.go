// Package recur holds repeating schedules (毎週月曜と木曜の朝7時, every other
// week on Saturday): a structured Rule, read deterministically from a
// user's words, stored as RFC 5545 RRULE text and planned with
// github.com/teambition/rrule-go.
//
// When a user asks for a repeating reminder, the model proposes a Rule
// and the caller checks it against Parse's reading of the user's own
// words: Equal says whether they agree, Diff lists what differs for the
// question that asks the user which one they meant. Words with no
// repetition give ErrNotRepeating, and the one-shot reader takes them.
//
// # What Parse reads
//
// Japanese and English, in any order around the reminder's own words;
// full-width digits and kanji numerals (七時, 第二火曜, 十回) are folded
// first.
//
//   - Every day: 毎日, 毎朝, 毎晩, 毎夕, 隔日, 3日ごと, 1日おき (every other
//     day); every day, daily, every morning/evening/night, nightly,
//     every 3 days.
//   - Weeks: 毎週 with days written 月・木, 月曜と木曜, 月曜日と木曜日, 月木,
//     火曜, 月〜金 or 月曜から金曜; 毎月曜 (every Monday, not every month);
//     平日 (Monday to Friday, holidays skipped); 土日, 毎週末 (Saturday and
//     Sunday; 今週の土日 and a bare 週末 are one weekend, not a rule);
//     隔週, 2週間ごと, 3週ごと. English: every Monday and Thursday, Mondays,
//     Monday to Friday, weekdays, every weekday, every weekend, weekends,
//     every other week, every 2 weeks, biweekly, fortnightly.
//   - Months: 毎月1日, 毎月1日と15日, 毎月末, 毎月第2火曜, 毎月最終金曜, 隔月,
//     3か月ごと; on the 1st of every month, every month on the 15th, the last
//     day of every month, the second Tuesday of every month, the last Friday
//     of every month, monthly, every 3 months.
//   - Years: 毎年3月14日, 毎年3月末; every year on March 14, every March 14th,
//     annually.
//   - Minutes and hours: 30分ごと, 15分おき, 2時間ごと, 毎時, 毎時15分;
//     every 30 minutes, every half hour, every 2 hours, hourly, every hour
//     at :15.
//   - The time of day: 7時, 7時半, 7時30分, 19:30, 午後3時, 夜9時, 毎晩9時
//     (21:00), 正午; at 7, 7:30pm, 10am, 19:30, noon, midnight. A period
//     with a clock time moves it (夜9時 is 21:00, every night at 10 is
//     22:00); a period alone stands for a time: 朝 and morning 7:00, 昼 and
//     noon 12:00, 午後 and afternoon 15:00, 夕方 and evening 18:00, 夜, 晩
//     and night 21:00, 深夜 0:00, 午前 9:00. With no time at all a rule
//     fires at 9:00; hourly and minutely rules count from 0:00 on their
//     first day. A second, different time (毎日7時と19時, 朝晩, 1日2回) is
//     refused: a rule fires once a day, so each time is a rule of its own.
//   - Optional parts: a start (来週から, 明日から, 来月から, 12月10日から,
//     2027年1月5日から; from next week, starting Dec 10, from 2027-01-05),
//     an end, inclusive (3月まで is through March 31, 3月31日まで,
//     2027年3月31日まで, 今月いっぱい, 年内; until March, until March 31,
//     until 2027-03-31, through the end of the year), a count (10回;
//     10 times) and holidays (祝日は除く, 祝日を除く, 祝日はお休み, 祝日以外;
//     except holidays, skip holidays; 祝日も and including holidays keep
//     them, even for 平日), and days left out (毎朝7時、土日は除く, 土日祝は休み,
//     日曜以外; every day except weekends, except Sundays and holidays),
//     which make a daily rule weekly. A day said without a year is the
//     coming one; an end before the start is the next year's.
//
// Parse reads only what the words say; Validate judges the rule: more
// often than every 15 minutes, days that never come (毎年2月30日), an end
// before the start or already past, a count already used, a rule whose
// every day is a holiday. Both explain themselves in Japanese, with an
// example.
//
// # Storing and planning
//
// A stored rule is anchored (Anchor sets Start to today when none was
// said), since its DTSTART fixes which weeks 隔週 means, which weekday
// "every 2 weeks" falls on and where a count starts. RRULE writes it with
// DTSTART in the rule's zone (TZID); SkipHolidays, which RFC 5545 has no
// word for, is stored beside the text and handed back to FromRRULE.
//
// Compile a rule once when it is loaded; Schedule.Next is then a few
// microseconds, however long ago the rule started, since an uncounted rule
// is iterated from the last period before the time asked about. The time
// of day is wall-clock time and survives daylight saving changes: a time
// the clock skips fires when it shows that time after the jump (a daily
// 2:30 at 3:30 the night New York springs forward; an hourly rule fires 23
// times that day, once in each real hour), and a time the clock shows
// twice fires at the first, and at the second too for a rule that fires at
// least once an hour, so that every real hour has its hourly reminder.
// Holidays are Japan's national holidays (package holiday), read on the
// calendar of the rule's zone; a holiday is skipped as a whole day, the
// rule going on from the start of the next day that is not one, so a rule
// every 15 minutes passes Golden Week as cheaply as a daily one. An
// occurrence skipped for one still counts toward Count, as RFC 5545 counts
// what the RRULE yields, so that the stored text and any calendar reading
// it agree on the last day. Holidays are known to 2099 (holiday.LastYear):
// a rule that skips them has no occurrence after that year, and one that
// falls only on holidays until then (毎年1月1日, 祝日は除く) is refused.
package recur
