package reminder

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/recur"
	"github.com/yorozu-bot/yorozu/tools"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// stamps are the Discord timestamps of times, as a confirmation lists them.
func stamps(times ...time.Time) string {
	var out []string
	for _, t := range times {
		out = append(out, fmt.Sprintf("<t:%d:F>", t.Unix()))
	}
	return strings.Join(out, ", ")
}

func TestCreateRepeating(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 20, 0, 0, tokyo) // Tuesday
	at := func(m time.Month, d, h, min int) time.Time { return time.Date(2026, m, d, h, min, 0, 0, tokyo) }
	const monThu = `"frequency":"weekly","weekdays":["MO","TH"],"time":"07:00"`
	tests := []struct {
		name     string
		text     string // the user's words
		args     string
		want     []string // substrings of the result
		wantRule string   // the stored rule in words
		wantErr  []string // substrings of the refusal
	}{
		{name: "agrees with the words", text: "毎週月曜と木曜の朝7時に薬を飲むってリマインドして",
			args: `{"content":"薬を飲む","repeat":{` + monThu + `}}`,
			want: []string{
				"Created repeating reminder #1: 「毎週 月・木 7:00」 — 薬を飲む",
				"Next: " + stamps(at(12, 3, 7, 0), at(12, 7, 7, 0), at(12, 10, 7, 0)) + " (that is 2026-12-03 (木) 07:00 JST,",
				"write the next times exactly as " + stamps(at(12, 3, 7, 0), at(12, 7, 7, 0), at(12, 10, 7, 0)),
			},
			wantRule: "毎週 月・木 7:00、12月1日から"},
		{name: "Japanese days and a range", text: "平日9時に日報",
			args:     `{"content":"日報","repeat":{"frequency":"weekly","weekdays":["月-金"],"time":"9:00","skip_holidays":true}}`,
			want:     []string{"「平日 9:00」", stamps(at(12, 2, 9, 0), at(12, 3, 9, 0), at(12, 4, 9, 0))},
			wantRule: "平日 9:00、12月1日から"},
		{name: "Japanese day names", text: "毎週月曜と木曜の朝7時",
			args: `{"content":"x","repeat":{"frequency":"weekly","weekdays":["月曜","木曜日"],"time":"07:00"}}`, want: []string{"Created", "「毎週 月・木 7:00」"}},
		{name: "平日 as a day", text: "平日9時",
			args: `{"content":"x","repeat":{"frequency":"weekly","weekdays":["平日"],"time":"09:00","skip_holidays":true}}`, want: []string{"「平日 9:00」"}},
		{name: "the end of every month, no time said", text: "毎月末に家計簿",
			args: `{"content":"家計簿","repeat":{"frequency":"monthly","month_days":[-1]}}`,
			want: []string{"「毎月末 9:00」", stamps(at(12, 31, 9, 0), time.Date(2027, 1, 31, 9, 0, 0, 0, tokyo), time.Date(2027, 2, 28, 9, 0, 0, 0, tokyo))}},
		{name: "every other Saturday", text: "隔週土曜にシーツを洗う",
			args: `{"content":"シーツを洗う","repeat":{"frequency":"weekly","interval":2,"weekdays":["SA"]}}`,
			want: []string{"「隔週 土 9:00」", stamps(at(12, 5, 9, 0), at(12, 19, 9, 0), time.Date(2027, 1, 2, 9, 0, 0, 0, tokyo))}},
		{name: "a count starts with the first time to come", text: "毎日8時に2回",
			args: `{"content":"x","repeat":{"frequency":"daily","time":"08:00","count":2}}`,
			want: []string{"「毎日 8:00、2回」", "Next: " + stamps(at(12, 2, 8, 0), at(12, 3, 8, 0)) + " (that"}},
		{name: "start on the first day it fires is the same schedule", text: "毎週月曜と木曜の朝7時",
			args: `{"content":"x","repeat":{` + monThu + `,"start":"2026-12-03"}}`, want: []string{"Created"}},
		{name: "the answer to a question is not read", text: "はい、8時の方でお願いします",
			args: `{"content":"x","repeat":{"frequency":"weekly","weekdays":["MO"],"time":"08:00"}}`, want: []string{"「毎週 月 8:00」"}},
		{name: "words that cannot be read leave the model's rule", text: "毎日7時と19時に水やり",
			args: `{"content":"水やり","repeat":{"frequency":"daily","time":"07:00"}}`, want: []string{"「毎日 7:00」"}},

		{name: "disagrees with the words", text: "毎週月曜と木曜の朝7時に薬を飲むってリマインドして",
			args: `{"content":"薬を飲む","repeat":{"frequency":"weekly","weekdays":["MO"],"time":"08:00"}}`,
			wantErr: []string{
				`read as 「毎週 月・木 7:00」, but repeat is 「毎週 月 8:00」`,
				"曜日: 月・木 / 月; 時刻: 7:00 / 8:00",
				"Do not create it yet: ask the user which they mean, giving both in words, then call create_reminder",
				`the words' reading as repeat: {"frequency":"weekly","weekdays":["MO","TH"],"time":"07:00"}`,
			}},
		{name: "a start the user did not say", text: "毎週月曜と木曜の朝7時",
			args:    `{"content":"x","repeat":{` + monThu + `,"start":"2026-12-08"}}`,
			wantErr: []string{"開始: 2026年12月1日 / 2026年12月8日", "Do not create it yet"}},
		{name: "holidays the user did not skip", text: "毎週月曜の朝7時",
			args:    `{"content":"x","repeat":{"frequency":"weekly","weekdays":["MO"],"time":"07:00","skip_holidays":true}}`,
			wantErr: []string{"祝日: 含む / 除く"}},
		{name: "one-shot for repeating words", text: "毎朝7時に薬ってリマインドして",
			args: `{"content":"薬","due_at":"2026-12-02T07:00:00+09:00"}`,
			wantErr: []string{
				`read as a repeating schedule 「毎日 7:00」, but you gave a one-shot due_at 2026-12-02 (水) 07:00 JST`,
				`call create_reminder with repeat for a repeating one (the words' reading: {"frequency":"daily","time":"07:00"})`,
			}},

		{name: "unknown frequency", args: `{"content":"x","repeat":{"frequency":"fortnightly"}}`,
			wantErr: []string{`invalid argument "repeat.frequency": must be one of "minutely", "hourly", "daily", "weekly", "monthly", "yearly"`}},
		{name: "unknown weekday", args: `{"content":"x","repeat":{"frequency":"weekly","weekdays":["MO","XX"]}}`,
			wantErr: []string{`invalid argument "repeat.weekdays": "XX" is not a day of the week: use MO TU WE TH FR SA SU`}},
		{name: "no such time", args: `{"content":"x","repeat":{"frequency":"daily","time":"25:00"}}`,
			wantErr: []string{`invalid argument "repeat.time": "25:00" is not a time of day: use HH:MM from 00:00 to 23:59`}},
		{name: "time in words", args: `{"content":"x","repeat":{"frequency":"daily","time":"7am"}}`,
			wantErr: []string{`"7am" is not a time of day`}},
		{name: "until before start", args: `{"content":"x","repeat":{"frequency":"daily","start":"2026-12-10","until":"2026-12-01"}}`,
			wantErr: []string{`invalid argument "repeat.until": 2026-12-01 is before start 2026-12-10`}},
		{name: "not a day", args: `{"content":"x","repeat":{"frequency":"daily","until":"3月31日"}}`,
			wantErr: []string{`invalid argument "repeat.until": "3月31日" is not a day: use YYYY-MM-DD`}},
		{name: "no such day of the month", args: `{"content":"x","repeat":{"frequency":"monthly","month_days":[0]}}`,
			wantErr: []string{`invalid argument "repeat.month_days": 0 is not a day of the month: use 1 to 31, or -1 for the last day`}},
		{name: "weekday of a month without nth", args: `{"content":"x","repeat":{"frequency":"monthly","weekdays":["TU"]}}`,
			wantErr: []string{`invalid argument "repeat.nth": a monthly rule on a weekday needs nth`}},
		{name: "too often", args: `{"content":"x","repeat":{"frequency":"minutely","interval":5}}`,
			wantErr: []string{"the repeat rule 「5分ごと」 cannot be kept: 5分ごとは短すぎます", "Fix repeat and call create_reminder again, or tell the user why"}},
		{name: "never comes", args: `{"content":"x","repeat":{"frequency":"yearly","month":2,"month_days":[30]}}`,
			wantErr: []string{"cannot be kept: 2月30日は暦にないので、一度も来ません"}},
		{name: "days of the month in a weekly rule", args: `{"content":"x","repeat":{"frequency":"weekly","month_days":[1]}}`,
			wantErr: []string{"cannot be kept: 日にちは毎月か毎年の繰り返しでだけ使えます"}},
		{name: "empty content", args: `{"content":" ","repeat":{"frequency":"daily"}}`,
			wantErr: []string{"content is empty"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &fakeService{now: now}
			ctx := tools.WithCaller(context.Background(), tools.Caller{
				Session: "discord:channel:c1", Source: "discord", GuildID: "g1", ChannelID: "c1", UserID: "u1", MessageID: "m1", Text: tc.text,
			})
			got, err := registry(t, svc).Call(ctx, CreateName, json.RawMessage(tc.args))
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("created, want a refusal: %s", got)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("refusal %q\ndoes not contain %q", err, want)
					}
				}
				if len(svc.created) != 0 {
					t.Fatalf("a refused reminder was stored: %+v", svc.created)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(got, want) {
					t.Errorf("result %q\ndoes not contain %q", got, want)
				}
			}
			if len(svc.rules) != 1 {
				t.Fatalf("stored %d rules, want 1", len(svc.rules))
			}
			p := svc.created[0]
			if p.Kind != db.KindRemind || p.ChannelID != "c1" || p.UserID != "u1" || p.SourceMessageID != "m1" {
				t.Errorf("params = %+v, want the caller's reminder", p)
			}
			if tc.wantRule != "" {
				if got := svc.RuleText(svc.rs[0]); got != tc.wantRule {
					t.Errorf("stored rule %q, want %q", got, tc.wantRule)
				}
			}
		})
	}
}

// A user who set their own time zone has their words, the rule and the
// times shown read there.
func TestCreateInUserZone(t *testing.T) {
	newYork := mustZone(t, "America/New_York")
	now := time.Date(2026, 12, 1, 14, 20, 0, 0, tokyo) // 00:20 on Tuesday in New York
	svc := &fakeService{now: now, zones: map[string]*time.Location{"u1": newYork}}
	reg := registry(t, svc)
	call := func(text, args string) (string, error) {
		ctx := tools.WithCaller(context.Background(), tools.Caller{ChannelID: "c1", UserID: "u1", Text: text})
		return reg.Call(ctx, CreateName, json.RawMessage(args))
	}

	got, err := call("毎朝7時に散歩", `{"content":"散歩","repeat":{"frequency":"daily","time":"07:00"}}`)
	if err != nil {
		t.Fatal(err)
	}
	first := time.Date(2026, 12, 1, 7, 0, 0, 0, newYork) // still today there
	if want := "Next: " + stamps(first, first.AddDate(0, 0, 1), first.AddDate(0, 0, 2)) + " (that is 2026-12-01 (火) 07:00 EST"; !strings.Contains(got, want) {
		t.Errorf("result %q\ndoes not contain %q", got, want)
	}
	if rem := svc.rs[0]; rem.TimeZone != "America/New_York" || !rem.DueAt.Equal(first) {
		t.Errorf("stored in %s, due %s; want New York's 07:00", rem.TimeZone, rem.DueAt)
	}

	// 明日の朝9時 is tomorrow in New York, not in Tokyo.
	if _, err := call("明日の朝9時に歯医者", `{"content":"歯医者","due_at":"2026-12-02T09:00:00+09:00"}`); err == nil ||
		!strings.Contains(err.Error(), "read as 2026-12-02 (水) 09:00 EST") {
		t.Errorf("Tokyo's time for a New York user: %v", err)
	}
	got, err = call("明日の朝9時に歯医者", `{"content":"歯医者","due_at":"2026-12-02T09:00:00-05:00"}`)
	if err != nil || !strings.Contains(got, "created for 2026-12-02 (水) 09:00 EST") {
		t.Errorf("New York's time: %q, %v", got, err)
	}

	got, err = reg.Call(tools.WithCaller(context.Background(), tools.Caller{ChannelID: "c1", UserID: "u1"}), ListName, nil)
	want := "#1 repeats 「毎日 7:00、12月1日から」, next 2026-12-01 (火) 07:00 EST"
	if err != nil || !strings.Contains(got, want) || !strings.Contains(got, "#2 2026-12-02 (水) 09:00 EST") {
		t.Errorf("list = %q, %v; want New York's times (%q)", got, err, want)
	}
}

func TestCreateScheduledPost(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 20, 0, 0, tokyo)
	fri := func(d int) time.Time { return time.Date(2026, 12, d, 17, 0, 0, 0, tokyo) }
	const words = "毎週金曜17時にこのチャンネルで今週の話題をまとめて投稿して"
	const args = `{"prompt":"今週の話題をまとめて","repeat":{"frequency":"weekly","weekdays":["FR"],"time":"17:00"}}`
	manager := tools.Caller{Session: "discord:channel:c1", GuildID: "g1", ChannelID: "c1", UserID: "u1", MessageID: "m1", Text: words, ManageChannels: true}
	tests := []struct {
		name    string
		caller  tools.Caller
		args    string
		want    []string
		wantErr string
	}{
		{name: "a channel manager", caller: manager, args: args, want: []string{
			"Created scheduled post #1: 「毎週 金 17:00」 — 今週の話題をまとめて",
			"Next: " + stamps(fri(4), fri(11), fri(18)),
		}},
		{name: "a digest of a logged channel", caller: func() tools.Caller { c := manager; c.ChannelID = "logged"; return c }(),
			args: `{"prompt":"今週の話題をまとめて","repeat":{"frequency":"weekly","weekdays":["FR"],"time":"17:00"},"digest":true}`, want: []string{
				"Created digest #1: 「毎週 金 17:00」 — 今週の話題をまとめて", "このチャンネルの記録（/channel log）から読みます。",
			}},
		{name: "a digest from the history", caller: manager,
			args: `{"prompt":"今週の話題をまとめて","repeat":{"frequency":"weekly","weekdays":["FR"],"time":"17:00"},"digest":true}`, want: []string{
				"Created digest #1", "Discord のメッセージ履歴から読みます。",
			}},
		{name: "without Manage Channels", caller: func() tools.Caller { c := manager; c.ManageChannels = false; return c }(), args: args,
			wantErr: "does not have the Manage Channels permission in this channel (or it is not known), which a scheduled post needs: do not retry; tell the user"},
		{name: "in a DM", caller: func() tools.Caller { c := manager; c.GuildID = ""; return c }(), args: args,
			wantErr: "a scheduled post belongs to a server channel"},
		{name: "disagrees with the words", caller: manager,
			args:    `{"prompt":"今週の話題をまとめて","repeat":{"frequency":"weekly","weekdays":["FR"],"time":"07:00"}}`,
			wantErr: "時刻: 17:00 / 7:00"},
		{name: "no repeat", caller: manager, args: `{"prompt":"今週の話題をまとめて"}`,
			wantErr: `invalid argument "repeat": missing required argument`},
		{name: "the schedule left in the prompt", caller: manager,
			args:    `{"prompt":"毎週金曜17時に今週の話題をまとめて","repeat":{"frequency":"weekly","weekdays":["FR"],"time":"17:00"}}`,
			wantErr: "still holds the schedule (「毎週 金 17:00」): put the schedule in repeat only"},
		{name: "empty prompt", caller: manager, args: `{"prompt":"","repeat":{"frequency":"weekly","weekdays":["FR"],"time":"17:00"}}`,
			wantErr: "prompt is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &fakeService{now: now}
			got, err := registry(t, svc).Call(tools.WithCaller(context.Background(), tc.caller), PostName, json.RawMessage(tc.args))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if len(svc.created) != 0 {
					t.Fatalf("a refused post was stored: %+v", svc.created)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(got, want) {
					t.Errorf("result %q\ndoes not contain %q", got, want)
				}
			}
			p := svc.created[0]
			kind := db.KindPost
			if strings.Contains(tc.args, `"digest":true`) {
				kind = db.KindDigest
			}
			if p.Kind != kind || p.GuildID != "g1" || p.ChannelID != tc.caller.ChannelID || p.UserID != "u1" || p.Content != "今週の話題をまとめて" {
				t.Errorf("params = %+v, want a %s of the prompt in the caller's channel", p, kind)
			}
		})
	}
}

func TestListRepeating(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 20, 0, 0, tokyo)
	rule := recur.Rule{Freq: recur.Weekly, Weekdays: []time.Weekday{time.Monday, time.Thursday}, Hour: 7}.Anchor(now, tokyo)
	due := time.Date(2026, 12, 3, 7, 0, 0, 0, tokyo)
	svc := &fakeService{now: now, rs: []db.Reminder{
		{ID: 1, ChannelID: "c1", UserID: "u1", Content: "薬", DueAt: due, RRule: rule.RRULE(tokyo), TimeZone: "Asia/Tokyo"},
		{ID: 2, ChannelID: "c1", UserID: "u1", Content: "水やり", DueAt: due, RRule: rule.RRULE(tokyo), TimeZone: "Asia/Tokyo", PausedAt: &now},
	}}
	got, err := registry(t, svc).Call(tools.WithCaller(context.Background(), tools.Caller{ChannelID: "c1", UserID: "u1"}), ListName, nil)
	want := "The user's pending reminders in this channel (2):\n" +
		"#1 repeats 「毎週 月・木 7:00、12月1日から」, next 2026-12-03 (木) 07:00 JST <t:1796248800:R> — 薬\n" +
		"#2 repeats 「毎週 月・木 7:00、12月1日から」 一時停止中 (paused: nothing is sent until /remind resume id:2) — 水やり"
	if err != nil || got != want {
		t.Fatalf("list = %q, %v\nwant %q", got, err, want)
	}
}

// The model reads what each field of repeat means.
func TestRepeatSchema(t *testing.T) {
	for _, tool := range Tools(&fakeService{}) {
		m := tool.Meta()
		if m.Name != CreateName && m.Name != PostName {
			continue
		}
		repeat, ok := m.Parameters.Properties.Get("repeat")
		if !ok || repeat.Properties == nil {
			t.Fatalf("%s has no repeat object", m.Name)
		}
		var names []string
		for name, p := range repeat.Properties.All() {
			names = append(names, name)
			if p.Description == "" {
				t.Errorf("%s: repeat.%s has no description", m.Name, name)
			}
		}
		if got := strings.Join(names, ","); got != "frequency,interval,weekdays,month_days,nth,month,time,start,until,count,skip_holidays" {
			t.Errorf("%s: repeat fields %s", m.Name, got)
		}
		required := strings.Join(m.Parameters.Required, ",")
		if m.Name == CreateName && required != "content" || m.Name == PostName && required != "prompt,repeat" {
			t.Errorf("%s: required %s", m.Name, required)
		}
	}
}
