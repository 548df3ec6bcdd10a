package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// xssPayload would set window.pwned (or open an alert) if any of it ran.
const xssPayload = `<script>window.pwned = 1; alert(1)</script>` +
	` <img src="x" onerror="window.pwned = 2; alert(2)">` +
	` [押して](javascript:window.pwned=3) <a href="javascript:window.pwned=4">リンク</a>`

// inert is true in the page when nothing of xssPayload ran or survived as
// something that could run: no script in the content, no event handler
// attribute, no javascript: link.
const inert = `window.pwned === undefined && !document.querySelector('main script, main [onerror], main [onclick], a[href^="javascript:" i]')`

// TestAdminPageInBrowser drives the real page in chromium against a whole
// yorozu: logging in, Markdown rules, a streamed answer with its tool and the
// document it fetched, notes made and reordered by mouse and keyboard, a note
// linked to the chat, a summary deleted, River's UI, a slow model list, a
// phone and dark mode — and XSS payloads in user, model and note text that
// stay inert throughout.
func TestAdminPageInBrowser(t *testing.T) {
	site := newFileSite(t)
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.URL.Query().Get("q"), "円の面積") {
			fmt.Fprintf(w, `{"query":"q","results":[{"title":"円の面積の公式（算数のまとめ）","url":"%s/math/circle","content":"S = πr²"}]}`, site.URL)
			return
		}
		fmt.Fprintf(w, `{"query":"q","results":[{"title":"都道府県別人口","url":"%s/stats/population.csv","content":"CSV"}]}`, site.URL)
	}))
	defer searx.Close()
	a := openAdmin(t, map[string]string{
		"SEARCH_BACKEND":  "searxng",
		"SEARXNG_URL":     searx.URL,
		"FETCH_ALLOWLIST": strings.TrimPrefix(site.URL, "http://"),
	})
	h := a.h
	b := a.browserPage
	b.noProblems("login")

	// Logged out, a screen sends the visitor to the login, which says when
	// the password is wrong.
	b.screenshot("chat-empty")
	markdownRules(t, b)

	// Turn 1 fetches a CSV, then streams an answer carrying the payload; its
	// second part waits for the test.
	rest := make(chan struct{})
	var mu sync.Mutex
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		last, user := req.Messages[len(req.Messages)-1], lastUserText(req)
		switch {
		case strings.Contains(user, "人口") && last.Role == "user":
			return ollamatest.ToolCalls(ollamatest.Call("search_and_fetch", map[string]any{"query": "都道府県別人口", "file_type": "csv"}))
		case strings.Contains(user, "人口"):
			return ollamatest.Reply{Chunks: []ollamatest.Chunk{
				{Content: "## 都道府県別の人口\n\nCSV を見つけました。"},
				{Content: "\n\n" + xssPayload + "\n\n", Wait: rest},
				{Content: "表は**取得した資料**から読めます。"},
			}}
		case strings.Contains(user, "円の面積") && last.Role == "user":
			return ollamatest.ToolCalls(ollamatest.Call("web_search", map[string]any{"query": "円の面積 公式"}))
		case strings.Contains(user, "円の面積"):
			return ollamatest.Text("円の面積は $S = \\pi r^2$ で求められます（$r$ は半径）。\n\n",
				"| 半径 | 面積 |\n|---:|---:|\n| 1 cm | 約 3.14 cm² |\n| 2 cm | 約 12.57 cm² |\n\n",
				"半径が **2 倍** になると、面積は **4 倍** になります。")
		}
		return ollamatest.Text("ノートを読んで答えました。")
	})
	b.typeInto("#input", "都道府県別人口の CSV を探して "+xssPayload)
	b.ctrlEnter()
	b.waitJS("the tool event, done", `[...document.querySelectorAll('.msg.assistant .tools li')].some((li) => li.textContent.includes('検索して資料を読む') && !li.querySelector('.spin'))`)
	b.waitJS("the first streamed chunk", `document.querySelector('.msg.assistant .bubble').textContent.includes('CSV を見つけました')`)
	if got := evalIn[string](b, `document.querySelector('.msg.assistant .bubble').textContent`); strings.Contains(got, "取得した資料") {
		t.Errorf("the answer was whole before its last chunk was sent: %q", got)
	}
	b.screenshot("chat-streaming")
	close(rest)
	b.waitJS("the whole answer", `document.querySelector('.msg.assistant .bubble strong')?.textContent === '取得した資料' && document.querySelector('#stop').hidden`)
	b.waitJS("the source link", `[...document.querySelectorAll('.msg.assistant .sources a')].some((a) => a.href.endsWith('/stats/population.csv'))`)
	b.waitJS("the payload inert in user and model text", inert)
	if got := evalIn[string](b, `document.querySelector('.msg.user .bubble').textContent`); !strings.Contains(got, "<script>window.pwned") {
		t.Errorf("the user's message does not show its text as typed: %q", got)
	}
	b.noProblems("chat")

	// Issue 15's panel: the conversation lists the document it fetched, and
	// opening it shows its text.
	b.waitJS("the fetched-documents panel", `!document.querySelector('#docs').hidden && document.querySelectorAll('#docs-list li').length === 1`)
	b.click("#docs > summary")
	b.click("#docs-list li button")
	b.waitJS("the document's text", `!document.querySelector('#doc-view').hidden && document.querySelector('#doc-text').textContent.startsWith('year,prefecture,population') && document.querySelector('#doc-text').textContent.includes('2019,東京都') && document.querySelector('#doc-title a')?.href.endsWith('/stats/population.csv')`)
	b.screenshot("chat")
	b.noProblems("documents")
	var sessionID int64
	if err := h.pool.QueryRow(context.Background(), "SELECT id FROM sessions WHERE source = 'web'").Scan(&sessionID); err != nil {
		t.Fatal(err)
	}

	// Notes: two pages in two sections, one carrying the payload.
	a.open("/notes")
	b.waitJS("the notes screen", `document.querySelector('#pages .empty')?.textContent.startsWith('ページはまだありません')`)
	newNote(b, "買い物", "家", "牛乳と卵")
	newNote(b, "議事録", "仕事", "**会議**\n\n"+xssPayload)
	shop, minutes := noteID(t, h, "買い物"), noteID(t, h, "議事録")
	b.waitJS("the note rendered", `document.querySelector('.page .md strong')?.textContent === '会議'`)
	b.waitJS("the payload inert in a note", inert)

	// A real mouse drag of 議事録 onto the 家 tab moves it to that section's
	// end; a second drag puts it above 買い物.
	handle := func(id int64) string { return fmt.Sprintf(`.page[data-id="%d"] .handle`, id) }
	x, y := b.center(`#tabs [role=tab][data-section="家"]`)
	b.drag(handle(minutes), x, y)
	b.waitJS("議事録 moved to 家", `document.querySelector('#tabs [data-section="家"] .badge').textContent === '2' && !document.querySelector('#pages[aria-busy]')`)
	wantOrder(t, h, "家/買い物 家/議事録")
	b.click(`#tabs [role=tab][data-section="家"]`)
	b.waitJS("both pages in 家", `document.querySelectorAll('#pages .page').length === 2`)
	top := b.rect(fmt.Sprintf(`.page[data-id="%d"]`, shop))
	b.drag(handle(minutes), (top[0]+top[2])/2, top[1]+4)
	b.waitJS("議事録 above 買い物", pagesInOrder("議事録", "買い物")+` && !document.querySelector('#pages[aria-busy]')`)
	wantOrder(t, h, "家/議事録 家/買い物")
	b.screenshot("notes-dragged")
	a.reload()
	b.waitJS("the dragged order after a reload", pagesInOrder("議事録", "買い物")+" && "+notesSettled)

	// The keyboard way: Space grabs, ↑ moves, Space drops.
	evalIn[bool](b, fmt.Sprintf(`(document.querySelector(%s).focus(), true)`, jsString(handle(shop))))
	b.keys("grab", " ")
	b.waitJS("grabbed", fmt.Sprintf(`document.querySelector('.page[data-id="%d"]').classList.contains('grabbed')`, shop))
	b.keys("move up", kb.ArrowUp)
	b.keys("drop", " ")
	b.waitJS("買い物 above 議事録", pagesInOrder("買い物", "議事録")+` && !document.querySelector('.page.grabbed, #pages[aria-busy]')`)
	wantOrder(t, h, "家/買い物 家/議事録")
	a.reload()
	b.waitJS("the keyboard order after a reload", pagesInOrder("買い物", "議事録")+" && "+notesSettled)
	b.waitJS("the payload inert after a reload", inert)

	// The editor's preview renders the payload inert too.
	b.clickText(fmt.Sprintf(`.page[data-id="%d"] button`, minutes), "編集")
	b.waitJS("the preview", `document.querySelector('.editor .preview strong')?.textContent === '会議'`)
	b.waitJS("the payload inert in the preview", inert)
	b.clickText(".editor button", "キャンセル")

	// Link 買い物 to the chat opened last.
	b.clickText(fmt.Sprintf(`.page[data-id="%d"] button`, shop), "会話に紐付け")
	b.waitJS("linked", fmt.Sprintf(`!!document.querySelector('.page[data-id="%d"] .linked')`, shop))
	b.screenshot("notes")
	b.noProblems("notes")

	// Back in the chat, the picker shows the link, and the next model
	// request carries the page's full text.
	a.open("/")
	b.waitJS("the conversation again", `document.querySelectorAll('#messages .msg').length === 2 && document.querySelector('#note-count').textContent === '1'`)
	b.typeInto("#input", "ノートを見て答えて")
	b.ctrlEnter()
	b.waitJS("the second answer", `[...document.querySelectorAll('.msg.assistant .bubble')].some((e) => e.textContent.includes('ノートを読んで答えました'))`)
	turns := h.turns()
	if body, _ := json.Marshal(turns[len(turns)-1].Messages); !strings.Contains(string(body), "牛乳と卵") {
		t.Errorf("the linked note's text is not in the next model request: %s", body)
	}
	b.noProblems("linked note")

	// Memory: a summary of the first turn, deleted from the page, gives its
	// turns back to the context.
	ctx := context.Background()
	mem, err := db.InsertMemory(ctx, h.pool, db.MemoryParams{SessionID: sessionID, Content: "人口の CSV を探した。", MessageCount: 2,
		PeriodStart: time.Now().Add(-time.Hour), PeriodEnd: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetMemoryTags(ctx, h.pool, mem.ID, []string{"人口", "CSV"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.pool.Exec(ctx, `UPDATE messages SET archived_at = now(), memory_id = $1
WHERE id IN (SELECT id FROM messages WHERE session_id = $2 ORDER BY id LIMIT 2)`, mem.ID, sessionID); err != nil {
		t.Fatal(err)
	}
	a.open("/memory")
	b.waitJS("the summary with its tags", `[...document.querySelectorAll('#memories .entry')].some((e) => e.textContent.includes('人口の CSV を探した') && e.textContent.includes('CSV'))`)
	b.screenshot("memory")
	b.clickText("#memories .entry button", "削除")
	b.clickText("#memories .entry button", "本当に削除")
	b.waitJS("the summary gone", `!document.querySelector('#memories .entry')`)
	h.waitCount(t, "SELECT count(*) FROM memories", 0)
	h.waitCount(t, "SELECT count(*) FROM messages WHERE archived_at IS NOT NULL", 0)
	b.noProblems("memory")

	// First render does not wait for a slow call: with Ollama's model list
	// held, the chat shows its conversations and messages.
	held := make(chan struct{})
	h.ollama.HoldTags(held)
	a.open("/")
	b.waitJS("the conversation while the model list is slow", `document.querySelectorAll('#session-list li button').length === 1 && document.querySelectorAll('#messages .msg').length === 4`)
	if n := evalIn[int](b, `document.querySelectorAll('#model optgroup').length`); n != 0 {
		t.Errorf("the model list was in before Ollama answered (%d groups)", n)
	}
	close(held)
	h.ollama.HoldTags(nil)
	b.waitJS("the installed models", `[...document.querySelectorAll('#model optgroup')].some((g) => g.label === 'インストール済み' && g.textContent.includes('qwen3:4b'))`)
	b.noProblems("slow model list")

	// River's UI, behind the same login, works under the page's CSP and its
	// writes carry the CSRF token.
	a.open("/jobs/")
	b.waitJS("River's UI", `document.title === 'River' && document.body.textContent.includes('Jobs')`)
	b.screenshot("jobs")
	status := evalIn[int](b, `fetch('/jobs/api/jobs/retry', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({job_ids: ['999999']})}).then((r) => r.status)`)
	if status == http.StatusForbidden || status == http.StatusUnauthorized {
		t.Errorf("a write from River's UI = %d", status)
	}
	// River's UI probes whether it may compile code (zod's new Function
	// check), is refused by the CSP and goes on without.
	b.noProblems("jobs", "CSP violation: script-src eval at "+h.httpURL+"/jobs/assets/")

	// The other screens show what they hold.
	a.open("/logs")
	b.waitJS("the model calls", `document.querySelectorAll('#logs tr[data-id]').length >= 3`)
	b.clickText("#logs button", "詳細")
	b.waitJS("a call's request", `!document.querySelector('#log-detail').hidden && document.querySelector('#log-body').textContent.includes('"messages"')`)
	b.screenshot("logs")
	a.open("/knowledge-base")
	b.waitJS("the knowledge base", `document.querySelector('#kb-summary').textContent.includes('埋め込みモデル: bge-m3')`)
	b.screenshot("knowledge-base")
	if _, err := db.CreateReminder(ctx, h.pool, db.ReminderParams{ChannelID: channelID, UserID: aliceID, Content: "ゴミ出し", DueAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	a.open("/reminders")
	b.waitJS("the reminder", `[...document.querySelectorAll('#reminders .entry')].some((e) => e.textContent.includes('ゴミ出し') && e.textContent.includes('予定'))`)
	b.screenshot("reminders")
	b.clickText("#reminders .entry button", "取り消す")
	b.clickText("#reminders .entry button", "本当に取り消す")
	b.waitJS("the reminder cancelled", `document.querySelector('#reminders .entry .badge').textContent.startsWith('取り消し済み')`)
	b.noProblems("logs, knowledge base, reminders")

	// A setting changed on the page is in force at once; the page says so
	// and can put the environment's value back.
	h.ollama.AddModel("gemma3", "completion", "tools")
	a.open("/settings")
	b.waitJS("the settings", `document.querySelector('#set-default_model')?.value === 'qwen3:4b' && document.querySelector('#set-tavily_api_key').type === 'password'`)
	b.typeInto("#set-default_model", "gemma3")
	b.clickText("#settings-form button", "保存")
	b.waitJS("set on the page", `[...document.querySelectorAll('#settings .source')].some((e) => e.textContent.includes('この画面で設定（環境変数 DEFAULT_MODEL の値「qwen3:4b」より優先）'))`)
	b.screenshot("settings")
	a.open("/")
	b.waitJS("the new default in the chat", `document.querySelector('#model option').textContent === '既定のモデル（gemma3）'`)
	a.open("/settings")
	b.clickText("#settings button", "環境変数の値に戻す")
	b.clickText("#settings button", "本当に戻す")
	b.waitJS("back to the environment's", `document.querySelector('#set-default_model').value === 'qwen3:4b' && !document.querySelector('#settings button.link')`)
	b.noProblems("settings")

	// A clean conversation for the README: a search, Markdown and math.
	a.open("/")
	b.waitJS("the chat", `document.querySelectorAll('#messages .msg').length === 4`)
	b.click("#new-session")
	b.typeInto("#input", "円の面積はどうやって求める？")
	b.ctrlEnter()
	b.waitJS("the answer with its math and table", `[...document.querySelectorAll('.msg.assistant .bubble')].some((e) => e.querySelector('.katex') && e.querySelector('table')) && document.querySelector('#stop').hidden`)
	b.waitJS("the search's tool line", `[...document.querySelectorAll('.msg.assistant .tools li.done')].some((li) => li.textContent.includes('Web 検索'))`)
	b.waitJS("KaTeX's fonts", `document.fonts.check('1em KaTeX_Math') && document.fonts.check('1em KaTeX_Main') && document.fonts.status === 'loaded'`)
	b.screenshot("readme")
	b.noProblems("readme")

	// Dark mode follows the system.
	b.colorScheme("dark")
	a.open("/")
	b.waitJS("the chat in the dark", `document.querySelectorAll('#messages .msg').length === 2`)
	if bg := evalIn[string](b, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(23, 24, 26)" {
		t.Errorf("dark mode body background = %s", bg)
	}
	b.screenshot("chat-dark")
	a.open("/notes")
	b.waitJS("the notes in the dark", `document.querySelectorAll('#pages .page').length === 2`)
	b.screenshot("notes-dark")
	b.colorScheme("light")

	// A phone: one column.
	b.do("phone width", chromedp.EmulateViewport(390, 844))
	a.open("/")
	b.waitJS("the chat on a phone", `document.querySelectorAll('#messages .msg').length === 2`)
	if cols := evalIn[string](b, `getComputedStyle(document.querySelector('.chat')).gridTemplateColumns`); strings.Contains(strings.TrimSpace(cols), " ") {
		t.Errorf("at 390 px the chat has columns %q, want one", cols)
	}
	if w := evalIn[int](b, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px the chat is %d px wide: it scrolls sideways", w)
	}
	b.screenshot("phone")
	a.open("/notes")
	b.waitJS("the notes on a phone", `document.querySelectorAll('#pages .page').length === 2`)
	if w := evalIn[int](b, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px the notes are %d px wide: they scroll sideways", w)
	}
	b.screenshot("phone-notes")
	b.noProblems("phone")
}

// markdownRules checks the Markdown module in the real browser: the price
// rule for $, the fence closed while streaming, and what the sanitiser
// leaves of an XSS payload.
func markdownRules(t *testing.T, b *browserPage) {
	t.Helper()
	rules := evalIn[map[string]string](b, `import('/static/js/markdown.js').then(m => ({
		price: m.toHTML('$100 から $200'),
		inline: m.toHTML('面積 $x^2$ と $5'),
		spaced: m.toHTML('$ x$'),
		escaped: m.toHTML('\\$x$'),
		digit: m.toHTML('$x$1'),
		newline: m.toHTML('$a\nb$'),
		fence: m.toHTML('~~~\ncode', true),
		code: m.toHTML('`+"`$x$`"+`'),
		xss: m.toHTML(`+jsString(xssPayload)+`),
	}))`)
	for name, want := range map[string]bool{"price": false, "inline": true, "spaced": false, "escaped": false, "digit": false, "newline": false, "code": false} {
		if got := strings.Contains(rules[name], "data-tex"); got != want {
			t.Errorf("math in %s = %v, want %v: %s", name, got, want, rules[name])
		}
	}
	if !strings.Contains(rules["fence"], "<pre><code>code") {
		t.Errorf("an open fence while streaming renders as %s", rules["fence"])
	}
	if x := strings.ToLower(rules["xss"]); strings.Contains(x, "<script") || strings.Contains(x, "onerror") || strings.Contains(x, `href="javascript`) {
		t.Errorf("the sanitiser left script in: %s", rules["xss"])
	}
}

func lastUserText(req api.ChatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// newNote adds a page through the notes screen's editor.
func newNote(b *browserPage, title, section, content string) {
	b.t.Helper()
	b.click("#new-note")
	b.typeInto(`#pages li.new input[aria-label="タイトル"]`, title)
	b.typeInto(`#pages li.new input[aria-label="セクション"]`, section)
	b.typeInto(`#pages li.new textarea`, content)
	b.click(`#pages li.new button[type=submit]`)
	b.waitJS("the new page "+title, fmt.Sprintf(`!document.querySelector('#pages li.new') && [...document.querySelectorAll('.page h2')].some((h) => h.textContent === %s)`, jsString(title)))
}

func noteID(t *testing.T, h *harness, title string) int64 {
	t.Helper()
	var id int64
	if err := h.pool.QueryRow(context.Background(), "SELECT id FROM note_pages WHERE title = $1", title).Scan(&id); err != nil {
		t.Fatalf("note %s: %v", title, err)
	}
	return id
}

// notesSettled is true once the notes screen has all it loads (the pages,
// then the links to the chat) and no move is in flight.
const notesSettled = `document.querySelector('#chat-link-hint').textContent !== '' && !document.querySelector('#pages[aria-busy]')`

// pagesInOrder is true when the shown tab lists exactly these pages.
func pagesInOrder(titles ...string) string {
	b, _ := json.Marshal(titles)
	return fmt.Sprintf(`JSON.stringify([...document.querySelectorAll('#pages .page h2')].map((h) => h.textContent)) === %s`, jsString(string(b)))
}

// wantOrder checks the stored order of the pages, "section/title" each.
func wantOrder(t *testing.T, h *harness, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rows, err := h.pool.Query(context.Background(), "SELECT section || '/' || title FROM note_pages ORDER BY position")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var s string
			_ = rows.Scan(&s)
			got = append(got, s)
		}
		rows.Close()
		if strings.Join(got, " ") == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stored note order = %v, want %s", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
