package main

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestAdminPageSpacesInBrowser: the notes screen shows one space at a time
// and says which, lists a page's earlier versions with who changed it and
// restores one; a new chat started in a server's space sees that space's
// notes.
func TestAdminPageSpacesInBrowser(t *testing.T) {
	b := newBrowserPage(t)
	h := start(t, map[string]string{"ADMIN_PASSWORD": adminPassword})
	ctx := context.Background()
	const space = "guild:" + guildID
	if _, err := db.UpsertSession(ctx, h.pool, db.SessionParams{Key: "discord:channel:" + channelID, Source: "discord", Space: space}); err != nil {
		t.Fatal(err)
	}
	page, err := db.CreateNotePage(ctx, h.pool, space, "A の合言葉", "やまかわ", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateNoteContent(ctx, h.pool, page.ID, "まちがい", db.NoteEditor{Name: "いたずら"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateNotePage(ctx, h.pool, "web", "ウェブのメモ", "x", ""); err != nil {
		t.Fatal(err)
	}

	b.do("log in", chromedp.Navigate(h.httpURL+"/login"), chromedp.WaitVisible(chromedp.CSS("#password")),
		chromedp.SendKeys(chromedp.CSS("#password"), adminPassword),
		chromedp.Click(chromedp.CSS("#login-form button")), chromedp.WaitVisible(chromedp.CSS("#input")))

	pick := func(key string) {
		t.Helper()
		evalIn[bool](b, `(() => { const s = document.querySelector('#space'); s.value = '`+key+`'; s.dispatchEvent(new Event('change')); return true })()`)
	}
	pages := `[...document.querySelectorAll('#pages .page h2')].map(h => h.textContent).join(',')`
	b.do("open the server's notes", chromedp.Navigate(h.httpURL+"/notes?space="+space))
	b.waitJS("the server's page alone", pages+` === 'A の合言葉'`)
	if got := evalIn[string](b, `document.querySelector('#space').selectedOptions[0].textContent`); !strings.Contains(got, "サーバー（ID "+guildID+"）") {
		t.Errorf("the space picker reads %q", got)
	}
	pick("web")
	b.waitJS("the web space's page alone", pages+` === 'ウェブのメモ'`)
	pick(space)
	b.waitJS("the server's page", pages+` === 'A の合言葉'`)

	history := `[...document.querySelectorAll('#pages .page .page-head button')].find(x => x.textContent === '履歴')`
	evalIn[bool](b, `(`+history+`.click(), true)`)
	b.waitJS("the earlier version, with who replaced it", `!!document.querySelector('.revision') && document.querySelector('.revision').textContent.includes('いたずら が書き換え') && document.querySelector('.revision pre').textContent === 'やまかわ'`)
	b.screenshot("note-history")
	evalIn[bool](b, `([...document.querySelectorAll('.revision button')].find(x => x.textContent === 'この版に戻す').click(), true)`)
	b.waitJS("the restored text", `document.querySelector('#pages .page .md') && document.querySelector('#pages .page .md').textContent.includes('やまかわ')`)
	if p, err := db.NotePageByID(ctx, h.pool, page.ID); err != nil || p.Content != "やまかわ" {
		t.Errorf("after restoring, the page is %+v, %v", p, err)
	}
	b.noProblems("notes")

	// A new chat in the server's space: its prompt lists the server's notes.
	h.script(ollamatest.Text("やまかわです。"))
	b.do("open a new chat", chromedp.Navigate(h.httpURL+"/"), chromedp.WaitVisible(chromedp.CSS("#input")))
	b.noProblems("chat open")
	b.waitJS("the spaces", `document.querySelectorAll('#space option').length >= 2`)
	pick(space)
	b.do("ask", chromedp.SendKeys(chromedp.CSS("#input"), "合言葉は？"), chromedp.Click(chromedp.CSS("#send")))
	b.waitJS("the answer", `[...document.querySelectorAll('.msg.assistant .bubble')].some(x => x.textContent.includes('やまかわです。'))`)
	b.waitJS("the picker locked to the conversation's space", `document.querySelector('#space').disabled && document.querySelector('#space').value === '`+space+`'`)
	var got string
	if err := h.pool.QueryRow(ctx, `SELECT space FROM sessions WHERE source = 'web' ORDER BY id DESC LIMIT 1`).Scan(&got); err != nil || got != space {
		t.Errorf("the new web chat is in space %q (%v), want %s", got, err, space)
	}
	if turns := h.turns(); len(turns) != 1 || !strings.Contains(systemTexts(turns[0].Messages), "A の合言葉") || strings.Contains(systemTexts(turns[0].Messages), "ウェブのメモ") {
		t.Errorf("the chat's prompt does not show the server's notes alone:\n%s", systemTexts(h.turns()[0].Messages))
	}
	b.noProblems("chat")
}
