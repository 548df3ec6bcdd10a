package chat

import (
	"strings"
	"testing"
	"time"
)

// TestReadEvent: the times of an event are read as /remind add reads
// them, in the asker's zone, the end after the start; what cannot be an
// event is refused with the reason.
func TestReadEvent(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 7, 15, 0, 0, 0, tokyo) // a Monday
	at := func(d, h int) time.Time { return time.Date(2026, 12, d, h, 0, 0, 0, tokyo) }
	cases := []struct {
		name       string
		args       eventOfferArgs
		start, end time.Time
		refusal    string
	}{
		{"saturday evening to nine", eventOfferArgs{Name: "ボドゲ会", Start: "土曜19時", End: "21時", Place: "駅前"}, at(12, 19), at(12, 21), ""},
		{"no end is two hours", eventOfferArgs{Name: "ボドゲ会", Start: "明日の19時", Place: "駅前"}, at(8, 19), at(8, 21), ""},
		{"voice channel", eventOfferArgs{Name: "作業会", Start: "明日の20時", Channel: "<#200000000000000077>"}, at(8, 20), at(8, 22), ""},
		{"a day without a time", eventOfferArgs{Name: "会", Start: "土曜", Place: "駅前"}, time.Time{}, time.Time{}, "時刻がありません"},
		{"unreadable", eventOfferArgs{Name: "会", Start: "そのうち", Place: "駅前"}, time.Time{}, time.Time{}, "読み取れませんでした"},
		{"no name", eventOfferArgs{Name: " ", Start: "明日の19時", Place: "駅前"}, time.Time{}, time.Time{}, "イベント名が空"},
		{"not a channel", eventOfferArgs{Name: "会", Start: "明日の19時", Channel: "ロビー"}, time.Time{}, time.Time{}, "チャンネル「ロビー」"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := readEvent(tc.args, now, tokyo)
			if tc.refusal != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refusal) {
					t.Fatalf("readEvent = %+v, %v; want a refusal saying %q", e, err, tc.refusal)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !e.Start.Equal(tc.start) || !e.End.Equal(tc.end) {
				t.Errorf("event from %v to %v, want %v to %v", e.Start, e.End, tc.start, tc.end)
			}
		})
	}
}
