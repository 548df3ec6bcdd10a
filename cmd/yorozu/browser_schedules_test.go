package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/recur"
	"github.com/yorozu-bot/yorozu/scheduler"
)

// TestSchedulesPageInBrowser: the 予定 screen lists a repeating reminder, a
// scheduled post, a paused schedule and a delivered one-shot reminder, each
// with its rule in words (or 「1回だけ」) and its next five occurrences in
// the browser's own time zone; its buttons pause and resume a schedule; a
// schedule's deliveries unfold with how late each went out, or that it was
// skipped.
func TestSchedulesPageInBrowser(t *testing.T) {
	a := openAdmin(t, nil)
	ctx := context.Background()
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	// The test's own scheduler writes rows and jobs as the bot's does; the
	// running yorozu's delivers them (none falls due during the test).
	sched, err := scheduler.New(a.h.pool, scheduler.Options{Location: tokyo})
	if err != nil {
		t.Fatal(err)
	}
	rems := sched.Reminders()
	repeat := func(words string, p db.ReminderParams) db.Reminder {
		t.Helper()
		rule, err := recur.Parse(words, time.Now(), tokyo)
		if err != nil {
			t.Fatalf("%s: %v", words, err)
		}
		p.ChannelID, p.UserID = channelID, aliceID
		rem, err := rems.Repeat(ctx, p, rule, tokyo)
		if err != nil {
			t.Fatalf("%s: %v", words, err)
		}
		return rem
	}
	garbage := repeat("毎週月・木 7:00、祝日は除く", db.ReminderParams{GuildID: guildID, Content: "燃えるゴミの日"})
	weather := repeat("毎朝8時", db.ReminderParams{GuildID: guildID, Kind: db.KindPost, Content: "今日の東京の天気を一言で"})
	rent := repeat("毎月1日 9時", db.ReminderParams{Content: "家賃を振り込む"})
	if rent, err = rems.AdminPause(ctx, rent.ID); err != nil {
		t.Fatal(err)
	}
	// A past occurrence of the garbage day skipped, one the catch-up after
	// downtime covered, and a one-shot reminder delivered 95 s late; each
	// recorded as the scheduler does, the garbage day staying on its next
	// occurrence and job.
	for i, d := range []db.Delivery{
		{ReminderID: garbage.ID, Occurrence: garbage.DueAt.AddDate(0, 0, -7), HandledAt: garbage.DueAt.AddDate(0, 0, -8), Error: "skipped"},
		{ReminderID: garbage.ID, Occurrence: garbage.DueAt.AddDate(0, 0, -14), HandledAt: garbage.DueAt.AddDate(0, 0, -14).Add(30 * time.Hour),
			MessageID: "m1", Covers: 2},
	} {
		o := db.Outcome{Delivery: d, Next: garbage.DueAt, JobID: garbage.JobID, Occurrences: i + 1}
		if err := db.RecordOutcome(ctx, a.h.pool, o); err != nil {
			t.Fatal(err)
		}
	}
	due := time.Now().Add(-time.Hour).Truncate(time.Minute)
	meeting, err := db.CreateReminder(ctx, a.h.pool, db.ReminderParams{ChannelID: channelID, UserID: bobID, Content: "会議の資料を送る", DueAt: due})
	if err != nil {
		t.Fatal(err)
	}
	late := due.Add(95 * time.Second)
	if err := db.RecordOutcome(ctx, a.h.pool, db.Outcome{Delivery: db.Delivery{ReminderID: meeting.ID, Occurrence: due, HandledAt: late, MessageID: "m2"},
		Occurrences: 1, Attempts: 1}); err != nil {
		t.Fatal(err)
	}

	// The browser lives in New York: the times are shown there.
	a.do("live in New York", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/New_York"})
		return err
	}))
	a.open("/reminders")
	a.waitJS("the four", `document.querySelectorAll('#reminders .entry').length === 4`)
	if got := evalIn[string](a.browserPage, `document.querySelector('#zone').textContent`); got != "America/New_York" {
		t.Errorf("the page says its times are in %q", got)
	}
	entry := func(id int64) string {
		return fmt.Sprintf(`document.querySelector('#reminders .entry[data-id="%d"]')`, id)
	}
	text := func(id int64) string {
		t.Helper()
		return evalIn[string](a.browserPage, entry(id)+`.innerText`)
	}

	for _, tc := range []struct {
		name string
		rem  db.Reminder
		want []string
	}{
		{"the garbage day", garbage, []string{"有効", "リマインダー", rems.RuleText(garbage), "Asia/Tokyo", "燃えるゴミの日", "次の 5 回"}},
		{"the weather post", weather, []string{"有効", "定期投稿", rems.RuleText(weather), "今日の東京の天気を一言で"}},
		{"the paused rent", rent, []string{"一時停止中", rems.RuleText(rent), "再開すれば"}},
		{"the meeting", meeting, []string{"完了", "1回だけ", "会議の資料を送る"}},
	} {
		got := text(tc.rem.ID)
		for _, w := range tc.want {
			if w == "" || !strings.Contains(got, w) {
				t.Errorf("%s does not read %q:\n%s", tc.name, w, got)
			}
		}
	}
	// The next five occurrences, converted to the browser's zone.
	next := evalIn[[]string](a.browserPage, `[...`+entry(garbage.ID)+`.querySelectorAll('.next li')].map((li) => li.textContent)`)
	want := rems.Upcoming(garbage, 5)
	if len(next) != 5 || len(want) != 5 {
		t.Fatalf("the garbage day's next occurrences read %q, want %v", next, want)
	}
	for i, w := range want {
		if clock := w.In(newYork).Format("15:04"); !strings.Contains(next[i], clock) {
			t.Errorf("occurrence %d reads %q, want %s in New York (%s in Tokyo)", i, next[i], clock, w.In(tokyo).Format("01/02 15:04"))
		}
	}
	if n := evalIn[int](a.browserPage, entry(meeting.ID)+`.querySelectorAll('.next li').length`); n != 0 {
		t.Errorf("the delivered reminder shows %d next occurrences", n)
	}

	// Deliveries unfold: how late, what was skipped, what a catch-up covered.
	a.clickAt("the meeting's deliveries", entry(meeting.ID)+`.querySelector('.deliveries summary')`)
	a.waitJS("the meeting's delivery", entry(meeting.ID)+`.querySelector('.deliveries[open] li')?.textContent.includes('1分35秒遅れ')`)
	a.clickAt("the garbage day's deliveries", entry(garbage.ID)+`.querySelector('.deliveries summary')`)
	a.waitJS("the garbage day's deliveries", entry(garbage.ID)+`.querySelector('.deliveries[open]')?.textContent.includes('スキップ')`)
	if got := text(garbage.ID); !strings.Contains(got, "30時間遅れ") || !strings.Contains(got, "2 回分をまとめて") {
		t.Errorf("the catch-up delivery is not told:\n%s", got)
	}
	a.screenshot("schedules")
	evalIn[bool](a.browserPage, `(`+entry(meeting.ID)+`.scrollIntoView(), true)`)
	a.screenshot("schedules-delivered")
	a.colorScheme("dark")
	a.screenshot("schedules-dark")
	a.colorScheme("light")
	a.noProblems("the schedules")

	// Pause and resume with the buttons.
	a.clickAt("pause the garbage day", entry(garbage.ID)+`.querySelector('button.pause')`)
	a.waitJS("paused", entry(garbage.ID)+`.querySelector('.badge').textContent.startsWith('一時停止中') && !!`+entry(garbage.ID)+`.querySelector('button.resume')`)
	a.waitJS("its deliveries still unfolded", `!!`+entry(garbage.ID)+`.querySelector('.deliveries[open]')`)
	if r, err := db.ReminderByID(ctx, a.h.pool, garbage.ID); err != nil || r.PausedAt == nil || r.JobID != nil {
		t.Fatalf("after the pause the row is %+v, %v", r, err)
	}
	a.screenshot("schedules-paused")
	a.clickAt("resume the garbage day", entry(garbage.ID)+`.querySelector('button.resume')`)
	a.waitJS("resumed", entry(garbage.ID)+`.querySelector('.badge').textContent === '有効' && !!`+entry(garbage.ID)+`.querySelector('button.pause')`)
	// Resumed days before its next occurrence: the planner gives it a job
	// once that is near.
	if r, err := db.ReminderByID(ctx, a.h.pool, garbage.ID); err != nil || r.PausedAt != nil || !r.DueAt.Equal(garbage.DueAt) {
		t.Fatalf("after the resume the row is %+v, %v (due %v before)", r, err, garbage.DueAt)
	}
	a.clickAt("resume the rent", entry(rent.ID)+`.querySelector('button.resume')`)
	a.waitJS("the rent resumed", entry(rent.ID)+`.querySelector('.badge').textContent === '有効'`)
	a.noProblems("pause and resume")
}
