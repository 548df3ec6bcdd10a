package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestAdminPageAsAPersonFindsIt: what a person meets on the admin page at
// 1280 and 390 px wide. A refused setting is said in Japanese under its
// field, marked aria-invalid, and nothing is saved; the chat's picker
// offers no embedding-only model; a code block's コピー covers none of the
// code; the conversation list shows its time whole; message actions are
// targets of at least 24 px and links have 4.5:1 contrast; 予定 and notes
// wrap a long URL instead of scrolling sideways; every page has its
// favicon, and none logs an error.
func TestAdminPageAsAPersonFindsIt(t *testing.T) {
	a := openAdmin(t, nil)
	h, b, ctx := a.h, a.browserPage, context.Background()
	long := "https://example.com/" + strings.Repeat("very-long-path-segment/", 8) + "end"

	// A refused setting.
	a.open("/settings")
	b.waitJS("the settings", `!!document.querySelector('#set-weather_cron')`)
	b.typeInto("#set-weather_cron", "99 99 * * *")
	b.clickText("#settings-form button", "保存")
	b.waitJS("the refusal under the field", `!document.querySelector('#set-weather_cron-error').hidden &&
		document.querySelector('#set-weather_cron').getAttribute('aria-invalid') === 'true' && document.activeElement.id === 'set-weather_cron'`)
	msg := evalIn[string](b, `document.querySelector('#set-weather_cron-error').textContent`)
	if strings.Contains(msg, "weather_cron") || strings.Contains(msg, "end of range") || !strings.Contains(msg, "時刻として読めません") {
		t.Errorf("the refusal reads %q: want Japanese, without the key or the parser's English", msg)
	}
	if n := evalIn[int](b, `document.querySelectorAll('.toast').length`); n != 0 {
		t.Errorf("%d toasts beside the refusal under the field", n)
	}
	if v, err := db.Setting(ctx, h.pool, "setting:weather_cron"); err == nil {
		t.Errorf("the refused value was saved: %q", v)
	}
	// A preset of a model not installed.
	b.typeInto("#preset-name", "大きい")
	b.typeInto("#preset-model", "llama3:70b")
	b.clickText("#preset-form button", "追加")
	b.waitJS("the preset refused under its field", `!document.querySelector('#preset-model-error').hidden &&
		document.querySelector('#preset-model-error').textContent.includes('インストールされていません')`)
	b.screenshots("person-settings")
	b.noProblems("settings")

	// The chat: no embedding-only model to pick; a code block; the list.
	h.script(ollamatest.Text("こうです。\n\n```go\nfmt.Println(\"こんにちは、世界\")\n```\n\n詳しくは " + long + " をどうぞ。"))
	a.open("/")
	b.waitJS("the models", `document.querySelectorAll('#model option').length > 1`)
	if models := evalIn[[]string](b, `[...document.querySelectorAll('#model option')].map((o) => o.value)`); strings.Contains(strings.Join(models, ","), embedModel) {
		t.Errorf("the chat offers the embedding model %s: %v", embedModel, models)
	}
	b.send("Go で挨拶を表示するには？")
	b.waitJS("the answer with its code", `!!document.querySelector('.msg.assistant .code-wrap .copy-code') && document.querySelector('#stop').hidden`)
	overlap := evalIn[bool](b, `(() => {
		const btn = document.querySelector('.msg.assistant .copy-code').getBoundingClientRect();
		const code = document.querySelector('.msg.assistant .code-wrap code');
		const range = document.createRange();
		range.selectNodeContents(code);
		return [...range.getClientRects()].some((r) => r.width > 0 && r.left < btn.right && btn.left < r.right && r.top < btn.bottom && btn.top < r.bottom);
	})()`)
	if overlap {
		t.Error("the copy button covers the code")
	}
	for _, width := range []int64{1280, 390} {
		b.viewport(width, 844, width < 600)
		b.waitJS("the conversation's time, whole", `(() => {
			const time = document.querySelector('#session-list time'), button = time && time.closest('button');
			if (!time || !button) return false;
			const t = time.getBoundingClientRect(), bt = button.getBoundingClientRect();
			return t.width > 0 && t.right <= bt.right + 0.5 && /\d{1,2}:\d{2}$/.test(time.textContent);
		})() || window.innerWidth < 700`)
		for _, r := range evalIn[[][]float64](b, `[...document.querySelectorAll('.msg-actions button')].filter((e) => e.offsetParent).map((e) => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })`) {
			if r[0] < 24 || r[1] < 24 {
				t.Errorf("at %d px a message action is %.0f×%.0f px, want at least 24×24", width, r[0], r[1])
			}
		}
		if px := evalIn[float64](b, `parseFloat(getComputedStyle(document.querySelector('.msg-actions button')).fontSize)`); px < 13 {
			t.Errorf("at %d px the message actions' text is %.1f px", width, px)
		}
		if sideways := evalIn[bool](b, `document.documentElement.scrollWidth > window.innerWidth + 1`); sideways {
			t.Errorf("at %d px the chat scrolls sideways", width)
		}
		b.screenshot(fmt.Sprintf("person-chat-%d", width))
	}
	b.viewport(1280, 844, false)
	// Link colour against the page.
	if ratio := evalIn[float64](b, contrastJS+`contrast(getComputedStyle(document.querySelector('#logout')).color, getComputedStyle(document.body).backgroundColor)`); ratio < 4.5 {
		t.Errorf("links have %.2f:1 contrast, want at least 4.5:1", ratio)
	}
	b.noProblems("chat")

	// 予定 and notes with a long URL, at phone width.
	if _, err := db.CreateReminder(ctx, h.pool, db.ReminderParams{GuildID: guildID, ChannelID: channelID, UserID: aliceID,
		Content: "資料はこちら " + long, DueAt: time.Now().Add(48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	b.viewport(390, 844, true)
	a.open("/reminders")
	b.waitJS("the reminder", `document.querySelectorAll('#reminders .entry').length === 1`)
	if sideways := evalIn[bool](b, `document.documentElement.scrollWidth > window.innerWidth + 1 ||
		[...document.querySelectorAll('#reminders .entry *')].some((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')`); sideways {
		t.Error("at 390 px 予定 cuts or scrolls the long URL sideways")
	}
	b.screenshot("person-schedules-390")
	if _, err := db.CreateNotePage(ctx, h.pool, "web", "リンク集", "[資料]("+long+") と "+long, ""); err != nil {
		t.Fatal(err)
	}
	a.open("/notes?space=web")
	b.waitJS("the note", `[...document.querySelectorAll('main *')].some((e) => e.textContent === 'リンク集')`)
	if sideways := evalIn[bool](b, `document.documentElement.scrollWidth > window.innerWidth + 1`); sideways {
		t.Error("at 390 px the notes scroll sideways")
	}
	b.screenshot("person-notes-390")
	b.viewport(1280, 844, false)

	// Every page has its icon, and the icon is there. Each page is let
	// finish loading before the next opens (the chat, last, puts its
	// conversation in the address once loaded).
	for _, path := range []string{"/notes", "/memory", "/knowledge-base", "/logs", "/settings", "/reminders", "/channels", "/"} {
		a.open(path)
		b.waitJS("the icon of "+path, `document.querySelector('link[rel=icon]')?.getAttribute('href') === '/static/favicon.svg' &&
			document.readyState === 'complete' && !document.querySelector('main').innerText.includes('読み込み中')`)
	}
	if ok := evalIn[bool](b, `Promise.all([fetch('/static/favicon.svg'), fetch('/favicon.ico')]).then((rs) => rs.every((r) => r.ok && r.headers.get('content-type').startsWith('image/svg')))`); !ok {
		t.Error("the favicon is not served at /static/favicon.svg and /favicon.ico")
	}
	b.noProblems("every page")
}

// contrastJS defines contrast(fg, bg): the WCAG contrast ratio of two CSS
// rgb() colours.
const contrastJS = `const contrast = (fg, bg) => {
	const lum = (c) => { const [r, g, b] = c.match(/[\d.]+/g).map(Number).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
		return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
	const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
	return (a + 0.05) / (b + 0.05);
}; `
