package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/scheduler"
)

// TestScheduleFormInBrowser: on 予定 a person picks the channel and the
// member by name, types a repeat in words and sees it read back with its
// next five occurrences (and a refusal under the field, marked invalid,
// while the words cannot be read); 作成 lists the repeating reminder; 「今すぐ
// テスト送信」 posts it once to the channel, marked as a test, leaving its
// next occurrence as it was; 編集 changes its text and rule; 取り消す ends it.
func TestScheduleFormInBrowser(t *testing.T) {
	a := openNamedAdmin(t)
	h, ctx := a.h, context.Background()
	h.script()
	aliceAsks(t, h)

	a.open("/reminders")
	a.waitJS("the channels by name", `[...document.querySelectorAll('#schedule-channel option')].some((o) => o.textContent === '#`+channelName+`')`)
	a.choose("#schedule-channel", channelID)
	a.waitJS("the members by name", `[...document.querySelectorAll('#schedule-user option')].some((o) => o.textContent === '`+aliceNick+`')`)
	a.choose("#schedule-user", aliceID)
	a.typeInto("#schedule-content", "燃えるゴミの日")

	// Words that are no time: said under the field, in Japanese.
	a.typeInto("#schedule-when", "そのうち")
	a.waitJS("the refusal under the field", `!document.querySelector('#schedule-when-error').hidden &&
		document.querySelector('#schedule-when').getAttribute('aria-invalid') === 'true'`)
	if msg := evalIn[string](a.browserPage, `document.querySelector('#schedule-when-error').textContent`); !strings.Contains(msg, "読み取れませんでした") || strings.Contains(msg, "when:") {
		t.Errorf("the refusal reads %q", msg)
	}
	a.screenshots("schedule-form-refused")

	a.typeInto("#schedule-when", "毎週月・木の7時")
	a.waitJS("the rule read back", `document.querySelectorAll('#schedule-reading .next li').length === 5 &&
		document.querySelector('#schedule-when').getAttribute('aria-invalid') === 'false'`)
	reading := evalIn[string](a.browserPage, `document.querySelector('#schedule-reading').innerText`)
	if !strings.Contains(reading, "繰り返し") || !strings.Contains(reading, "月") || !strings.Contains(reading, "木") || !strings.Contains(reading, "次の 5 回") {
		t.Errorf("the reading says:\n%s", reading)
	}
	a.screenshots("schedule-form")
	a.clickText("#schedule-form button", "作成")
	a.waitJS("the reminder listed", `[...document.querySelectorAll('#reminders .entry')].some((e) => e.innerText.includes('燃えるゴミの日') &&
		e.innerText.includes('`+aliceNick+`') && e.innerText.includes('#`+channelName+`') && e.querySelectorAll('.next li').length === 5)`)

	var rem db.Reminder
	rs, err := db.ListReminders(ctx, h.pool, 10)
	if err != nil || len(rs) != 1 {
		t.Fatalf("reminders = %+v, %v", rs, err)
	}
	rem = rs[0]
	if !rem.Repeats() || rem.UserID != aliceID || rem.ChannelID != channelID || rem.GuildID != guildID || rem.Kind != db.KindRemind {
		t.Fatalf("the reminder stored is %+v", rem)
	}
	for _, d := range scheduler.NextOccurrences(rem, 5) {
		if wd := d.In(tokyoLoc(t)).Weekday(); wd != time.Monday && wd != time.Thursday || d.In(tokyoLoc(t)).Hour() != 7 {
			t.Errorf("an occurrence at %v", d.In(tokyoLoc(t)))
		}
	}

	// A test send: posted now, marked, the schedule as it was.
	before := len(h.discord.BotMessages(channelID))
	a.clickText(`#reminders .entry[data-id="`+fmt.Sprint(rem.ID)+`"] button`, "今すぐテスト送信")
	a.waitJS("the test sent", `[...document.querySelectorAll('.toast')].some((e) => e.textContent.includes('テスト送信しました'))`)
	msgs := h.discord.BotMessages(channelID)
	if len(msgs) != before+1 || !strings.HasPrefix(msgs[len(msgs)-1].Content, scheduler.TestMark) || !strings.Contains(msgs[len(msgs)-1].Content, "燃えるゴミの日") {
		t.Fatalf("after the test send the channel has %d bot messages (had %d), the last %+v", len(msgs), before, msgs[len(msgs)-1])
	}
	after, err := db.ReminderByID(ctx, h.pool, rem.ID)
	if err != nil || !after.DueAt.Equal(rem.DueAt) || after.Occurrences != 0 || after.NotifiedAt != nil {
		t.Errorf("after the test send the reminder is %+v (%v); due %v before", after, err, rem.DueAt)
	}
	a.screenshots("schedule-created")

	// 編集: the text and the rule changed; the list and the row follow.
	entry := `#reminders .entry[data-id="` + fmt.Sprint(rem.ID) + `"]`
	a.clickText(entry+" button", "編集")
	a.waitJS("the form holds it", `document.querySelector('#schedule-content').value === '燃えるゴミの日' &&
		document.querySelector('#schedule-channel').value === '`+channelID+`' && document.querySelector('#schedule-user').value === '`+aliceID+`' &&
		document.querySelector('#schedule-submit').textContent === '保存'`)
	a.typeInto("#schedule-content", "資源ゴミの日")
	a.typeInto("#schedule-when", "毎朝8時")
	a.waitJS("the new rule read back", `document.querySelectorAll('#schedule-reading .next li').length === 5`)
	a.screenshots("schedule-editing")
	a.click("#schedule-submit")
	a.waitJS("the edit listed", `document.querySelector('`+entry+`')?.innerText.includes('資源ゴミの日') && document.querySelector('#schedule-submit').textContent === '作成'`)
	edited, err := db.ReminderByID(ctx, h.pool, rem.ID)
	if err != nil || edited.Content != "資源ゴミの日" || edited.RRule == rem.RRule || edited.DueAt.In(tokyoLoc(t)).Hour() != 8 {
		t.Errorf("after the edit the reminder is %+v (%v)", edited, err)
	}
	// 取り消す, pressed twice.
	a.clickText(entry+" button", "取り消す")
	a.clickText(entry+" button", "本当に取り消す")
	a.waitJS("cancelled", `document.querySelector('`+entry+`')?.querySelector('.badge').textContent.startsWith('取り消し済み')`)
	a.noProblems("the schedule form")
}

func tokyoLoc(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// choose picks value in the select sel, as a person would: the page gets
// its change event.
func (b *browserPage) choose(sel, value string) {
	b.t.Helper()
	b.waitJS("the option "+value+" of "+sel, fmt.Sprintf(`!!document.querySelector(%s + ' option[value="%s"]')`, jsString(sel), value))
	evalIn[bool](b, fmt.Sprintf(`(() => { const s = document.querySelector(%s); s.value = %s;
		s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`, jsString(sel), jsString(value)))
}
