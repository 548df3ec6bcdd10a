package reminder

import (
	"testing"
	"time"
)

var jst = time.FixedZone("JST", 9*3600)

func TestParseWhen(t *testing.T) {
	// Tuesday 2026-12-01 14:20:30 JST.
	now := time.Date(2026, 12, 1, 14, 20, 30, 0, jst)
	at := func(m time.Month, d, h, min int) time.Time { return time.Date(2026, m, d, h, min, 0, 0, jst) }
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, jst) }
	tests := []struct {
		text     string
		want     time.Time
		hasClock bool
		relative bool
		none     bool
	}{
		// Relative.
		{text: "30分後にリマインドして", want: now.Add(30 * time.Minute), hasClock: true, relative: true},
		{text: "３０分後に教えて", want: now.Add(30 * time.Minute), hasClock: true, relative: true},
		{text: "三十分後にリマインド", want: now.Add(30 * time.Minute), hasClock: true, relative: true},
		{text: "2時間後に会議", want: now.Add(2 * time.Hour), hasClock: true, relative: true},
		{text: "1時間半後に", want: now.Add(90 * time.Minute), hasClock: true, relative: true},
		{text: "1時間30分後に", want: now.Add(90 * time.Minute), hasClock: true, relative: true},
		{text: "その後、10分後に", want: now.Add(10 * time.Minute), hasClock: true, relative: true},
		{text: "remind me in 5 minutes", want: now.Add(5 * time.Minute), hasClock: true, relative: true},
		{text: "remind me in an hour", want: now.Add(time.Hour), hasClock: true, relative: true},
		{text: "in half an hour", want: now.Add(30 * time.Minute), hasClock: true, relative: true},
		{text: "in 1 hour 15 minutes", want: now.Add(75 * time.Minute), hasClock: true, relative: true},
		{text: "3日後の9時に", want: at(12, 4, 9, 0), hasClock: true},
		{text: "3日後に", want: day(12, 4)},
		{text: "1週間後に", want: day(12, 8)},

		// Named days and times.
		{text: "明日の朝9時に燃えるゴミって教えて", want: at(12, 2, 9, 0), hasClock: true},
		{text: "明日9時半", want: at(12, 2, 9, 30), hasClock: true},
		{text: "明後日の午後3時", want: at(12, 3, 15, 0), hasClock: true},
		{text: "あさって15時10分", want: at(12, 3, 15, 10), hasClock: true},
		{text: "今日の17:45に", want: at(12, 1, 17, 45), hasClock: true},
		{text: "今夜11時", want: at(12, 1, 23, 0), hasClock: true},
		{text: "夜9時にリマインド", want: at(12, 1, 21, 0), hasClock: true},
		{text: "夕方5時", want: at(12, 1, 17, 0), hasClock: true},
		{text: "昼12時", want: at(12, 2, 12, 0), hasClock: true},
		{text: "午前0時", want: at(12, 2, 0, 0), hasClock: true},
		{text: "夜12時", want: at(12, 2, 0, 0), hasClock: true},
		{text: "明日の夜12時", want: at(12, 3, 0, 0), hasClock: true},
		{text: "深夜2時にアラーム", want: at(12, 2, 2, 0), hasClock: true},
		{text: "明日の深夜1時", want: at(12, 3, 1, 0), hasClock: true},
		{text: "９時に", want: at(12, 2, 9, 0), hasClock: true},   // bare: the next 09:00
		{text: "15時に", want: at(12, 1, 15, 0), hasClock: true}, // later today
		{text: "来週の月曜の10時", want: at(12, 7, 10, 0), hasClock: true},
		{text: "来週の金曜日", want: day(12, 11)},
		{text: "今週の金曜 18時", want: at(12, 4, 18, 0), hasClock: true},
		{text: "金曜日の15時", want: at(12, 4, 15, 0), hasClock: true},
		{text: "火曜の10時", want: at(12, 8, 10, 0), hasClock: true}, // today's 10:00 is gone
		{text: "12月25日の18時", want: at(12, 25, 18, 0), hasClock: true},
		{text: "1月5日に", want: time.Date(2027, 1, 5, 0, 0, 0, 0, jst)},
		{text: "12/24 20:00", want: at(12, 24, 20, 0), hasClock: true},
		{text: "明日", want: day(12, 2)},

		// Days gone by stay in the past, so that the caller can say so.
		{text: "昨日の9時にリマインドして", want: at(11, 30, 9, 0), hasClock: true},
		{text: "一昨日の夜8時", want: at(11, 29, 20, 0), hasClock: true},
		{text: "昨夜11時", want: at(11, 30, 23, 0), hasClock: true},
		{text: "yesterday at 9am", want: at(11, 30, 9, 0), hasClock: true},
		// 昨日 that names what, not when.
		{text: "昨日の件、9時に教えて", want: at(12, 2, 9, 0), hasClock: true},

		// Years.
		{text: "2028年3月3日の10時", want: time.Date(2028, 3, 3, 10, 0, 0, 0, jst), hasClock: true},
		{text: "2027/3/3 9:00", want: time.Date(2027, 3, 3, 9, 0, 0, 0, jst), hasClock: true},
		{text: "2027-03-03に", want: time.Date(2027, 3, 3, 0, 0, 0, 0, jst)},
		{text: "2026年11月3日", want: day(11, 3)}, // gone by, not next year's
		{text: "来年の1月5日", want: time.Date(2027, 1, 5, 0, 0, 0, 0, jst)},
		{text: "今年の11月3日に", want: day(11, 3)},
		{text: "2月30日", none: true},
		{text: "2027年2月29日", none: true},
		{text: "2月29日", none: true}, // not in 2027

		// English.
		{text: "remind me tomorrow at 9", want: at(12, 2, 9, 0), hasClock: true},
		{text: "at 3pm", want: at(12, 1, 15, 0), hasClock: true},
		{text: "tomorrow at 7:30 am", want: at(12, 2, 7, 30), hasClock: true},
		{text: "tonight at 11", want: at(12, 1, 23, 0), hasClock: true},
		{text: "next monday at 10am", want: at(12, 7, 10, 0), hasClock: true},
		{text: "on friday at noon", want: at(12, 4, 12, 0), hasClock: true},

		// Nothing to check against.
		{text: "ゴミ出しをリマインドして", none: true},
		{text: "2時間くらいしたら", none: true},
		{text: "9時か10時に", none: true}, // two different times
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			r, ok := ParseWhen(tc.text, now)
			if tc.none {
				if ok {
					t.Fatalf("got %+v, want no reading", r)
				}
				return
			}
			if !ok {
				t.Fatal("no reading")
			}
			if !r.At.Equal(tc.want) || r.HasClock != tc.hasClock || r.Relative != tc.relative {
				t.Errorf("got %s clock=%v relative=%v, want %s clock=%v relative=%v",
					r.At.Format("2006-01-02 15:04:05"), r.HasClock, r.Relative,
					tc.want.Format("2006-01-02 15:04:05"), tc.hasClock, tc.relative)
			}
		})
	}
}
