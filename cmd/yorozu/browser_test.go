package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

var screenshotDir = flag.String("screenshots", "", "directory where the browser test saves its screenshots (login, chat, notes, phone)")

// chromium finds Debian's chromium (installed by .ci/run). Without it the
// browser test is skipped locally and fails under CI.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; .ci/run installs it with apt-get")
	}
	t.Skip("chromium is not installed (apt-get install chromium fonts-noto-cjk)")
	return ""
}

// browserPage is one headless tab. Script errors, dialogs (an alert is what
// an XSS payload would raise) and console errors are kept for the test.
type browserPage struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string
}

func newBrowserPage(t *testing.T) *browserPage {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // root in CI
		chromedp.WindowSize(1200, 800),
		chromedp.Flag("lang", "ja-JP"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() {
		cancelTime()
		cancelTab()
		cancelAlloc()
	})
	b := &browserPage{t: t, ctx: ctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.problem("script error: %s", e.ExceptionDetails.Text+" "+exceptionText(e.ExceptionDetails))
		case *page.EventJavascriptDialogOpening:
			b.problem("a dialog opened: %q", e.Message)
			go func() { _ = chromedp.Do(ctx, dismissDialog()) }()
		}
	}); err != nil {
		t.Fatal(err)
	}
	return b
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}

func dismissDialog() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		return chromedp.Void{}, err
	}
}

func (b *browserPage) problem(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
}

// noProblems fails the test on any script error or dialog so far.
func (b *browserPage) noProblems(when string) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("%s: %s", when, p)
	}
	b.problems = nil
}

func (b *browserPage) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// eval runs JavaScript (awaiting a promise) and returns its JSON value.
func evalIn[T any](b *browserPage, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitJS polls a JavaScript condition until it is true.
func (b *browserPage) waitJS(what, cond string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		b.t.Fatalf("waiting for %s (%s): %v", what, cond, err)
	}
}

// screenshot saves the viewport as name.png under -screenshots.
func (b *browserPage) screenshot(name string) {
	b.t.Helper()
	if *screenshotDir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(*screenshotDir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// drag presses the mouse on from's centre, moves to to's centre (above or
// below its middle when dy is set) in steps, and releases.
func (b *browserPage) drag(from, to string, dy float64) {
	b.t.Helper()
	centre := func(sel string) (float64, float64) {
		xy := evalIn[[]float64](b, `(() => { const r = document.querySelector(`+jsString(sel)+`).getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2, r.height]; })()`)
		return xy[0], xy[1] + dy*xy[2]/2
	}
	fx, fy := centre(from)
	tx, ty := centre(to)
	steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, fx, fy, chromedp.ButtonLeft, chromedp.ClickCount(1))}
	for i := 1; i <= 8; i++ {
		f := float64(i) / 8
		steps = append(steps, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, fx+(tx-fx)*f, fy+(ty-fy)*f, chromedp.ButtonLeft))
	}
	steps = append(steps, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, tx, ty, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	b.do("drag "+from+" to "+to, steps...)
}

func jsString(s string) string {
	return "`" + strings.NewReplacer("`", "\\`", "\\", "\\\\", "${", "\\${").Replace(s) + "`"
}

// xssPayload would set window.pwned (or open an alert) if any of it ran.
const xssPayload = `<script>window.pwned = 1; alert(1)</script>` +
	` <img src="x" onerror="window.pwned = 2; alert(2)">` +
	` [押して](javascript:window.pwned=3) <a href="javascript:window.pwned=4">リンク</a>`

// TestAdminPageInBrowser drives the real page in chromium against a whole
// yorozu (run with a fake Ollama and a real database): login, a streamed
// answer with a tool event, notes moved by drag and drop, a note linked to
// the chat, a summary deleted, and user and model text that stays inert.
func TestAdminPageInBrowser(t *testing.T) {
	b := newBrowserPage(t)
	const password = "correct horse battery staple"
	h := start(t, map[string]string{"ADMIN_PASSWORD": password})
	h.script(
		ollamatest.ToolCalls(ollamatest.Call("write_note", map[string]any{"title": "買い物", "content": "牛乳と卵", "mode": "create", "section": "生活"})),
		ollamatest.Text("ノートに", "書きました。\n\n```go\nfmt.Println(", "\"hi\")\n```\n\n", "面積は $\\pi r^2$ です（$100 から $200 は金額）。\n\n"+xssPayload),
	)

	// Logged out, the page sends the visitor to the login.
	b.do("open the page", chromedp.Navigate(h.httpURL+"/"), chromedp.WaitVisible(chromedp.CSS("#password")))
	if loc, _ := chromedp.Run(b.ctx, chromedp.Location()); !strings.Contains(loc, "/login?next=") {
		t.Errorf("logged out, / went to %s", loc)
	}
	b.screenshot("login")
	b.do("wrong password", chromedp.SendKeys(chromedp.CSS("#password"), "wrong"), chromedp.Submit(chromedp.CSS("#password")))
	b.waitJS("the wrong-password message", `document.querySelector('#login-error').textContent.includes('違います')`)
	b.do("log in", chromedp.SetValue(chromedp.CSS("#password"), ""), chromedp.SendKeys(chromedp.CSS("#password"), password),
		chromedp.Submit(chromedp.CSS("#password")), chromedp.WaitVisible(chromedp.CSS("#input")))

	// Chat: the answer streams in, the tool shows above it, the XSS stays text.
	b.do("send a message", chromedp.SendKeys(chromedp.CSS("#input"), "買い物メモを作って "+xssPayload), chromedp.Click(chromedp.CSS("#send")))
	b.waitJS("the tool event", `[...document.querySelectorAll('.msg.assistant .tools li')].some(li => li.textContent.includes('write_note') || li.textContent.includes('ノート'))`)
	b.waitJS("the streamed answer", `!document.querySelector('#send').disabled && document.querySelector('.msg.assistant:last-child .bubble').textContent.includes('書きました')`)
	answer := evalIn[map[string]any](b, `(() => {
		const a = document.querySelector('.msg.assistant:last-child');
		return {
			toolAbove: a.querySelector('.tools').compareDocumentPosition(a.querySelector('.bubble')) === Node.DOCUMENT_POSITION_FOLLOWING,
			code: a.querySelector('pre code')?.textContent ?? '',
			katex: a.querySelectorAll('.katex').length,
			text: a.querySelector('.bubble').textContent,
			userText: document.querySelector('.msg.user:last-of-type .bubble').textContent,
			session: new URLSearchParams(location.search).get('session'),
		};
	})()`)
	if answer["toolAbove"] != true {
		t.Error("the tool activity is not above the answer bubble")
	}
	if !strings.Contains(answer["code"].(string), `fmt.Println("hi")`) {
		t.Errorf("code block = %q", answer["code"])
	}
	if answer["katex"] != float64(1) || !strings.Contains(answer["text"].(string), "$100 から $200") {
		t.Errorf("math: %v KaTeX spans, text %q; want one formula and the prices as text", answer["katex"], answer["text"])
	}
	if !strings.Contains(answer["userText"].(string), "<script>") {
		t.Errorf("the user's message is not shown as typed: %q", answer["userText"])
	}
	session, _ := answer["session"].(string)
	var sid int64
	if _, err := fmt.Sscan(session, &sid); err != nil {
		t.Fatalf("the new conversation's id is not in the address: %q", session)
	}
	b.screenshot("chat")
	b.noProblems("chat")
	checkInert(t, b, "chat")

	// Markdown rules, in the real browser: the price rule and the open fence.
	rules := evalIn[map[string]string](b, `import('/static/js/markdown.js').then(m => ({
		price: m.toHTML('$100 から $200'),
		inline: m.toHTML('面積 $x^2$ と $5'),
		spaced: m.toHTML('$ x$'),
		escaped: m.toHTML('\\$x$'),
		digit: m.toHTML('$x$1'),
		newline: m.toHTML('$a\nb$'),
		fence: m.toHTML('~~~\ncode', true),
		code: m.toHTML('`+"`$x$`"+`'),
	}))`)
	for name, want := range map[string]bool{"price": false, "inline": true, "spaced": false, "escaped": false, "digit": false, "newline": false, "code": false} {
		if got := strings.Contains(rules[name], "data-tex"); got != want {
			t.Errorf("math in %s = %v, want %v: %s", name, got, want, rules[name])
		}
	}
	if !strings.Contains(rules["fence"], "<pre><code>code") {
		t.Errorf("an open fence while streaming renders as %s", rules["fence"])
	}

	// Notes: the tool's page is there; two more in two sections; a page
	// moved by dragging into another tab, then above another page.
	b.do("open the notes", chromedp.Navigate(h.httpURL+"/notes"), chromedp.WaitVisible(chromedp.CSS(".page")))
	newNote := func(title, section, content string) {
		b.do("new note "+title, chromedp.Click(chromedp.CSS("#new-note")), chromedp.WaitVisible(chromedp.CSS("li.new input")),
			chromedp.SendKeys(chromedp.CSS("li.new input[aria-label=タイトル]"), title),
			chromedp.SendKeys(chromedp.CSS("li.new input[aria-label=セクション]"), section),
			chromedp.SendKeys(chromedp.CSS("li.new textarea"), content),
			chromedp.Click(chromedp.CSS("li.new button[type=submit]")))
		b.waitJS("the note "+title, `!document.querySelector('li.new') && [...document.querySelectorAll('.page h2')].some(h => h.textContent === `+jsString(title)+`)`)
	}
	newNote("旅行", "予定", "京都へ行く")
	newNote("危ない", "仕事", "本文 "+xssPayload)
	checkInert(t, b, "notes")
	titles := func() string {
		return evalIn[string](b, `[...document.querySelectorAll('.page h2')].map(h => h.textContent).join(',')`)
	}
	tab := func(section string) string { return `[role=tab][data-section="` + section + `"]` }
	// 旅行 (予定) onto the 仕事 tab: it joins that section, at its end.
	b.do("open 予定", chromedp.Click(chromedp.CSS(tab("予定"))))
	b.drag(`.page .handle`, tab("仕事"), 0)
	b.waitJS("旅行 gone from 予定", `document.querySelectorAll('.page').length === 0`)
	b.do("open 仕事", chromedp.Click(chromedp.CSS(tab("仕事"))))
	b.waitJS("two pages in 仕事", `document.querySelectorAll('.page').length === 2`)
	if got := titles(); got != "危ない,旅行" {
		t.Errorf("仕事 after the drop on its tab = %s, want 危ない,旅行", got)
	}
	// 旅行 above 危ない.
	b.drag(`.page:nth-child(2) .handle`, `.page:nth-child(1)`, -0.6)
	b.waitJS("旅行 first", `document.querySelector('.page h2').textContent === '旅行'`)
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(".page")))
	b.do("open 仕事 again", chromedp.Click(chromedp.CSS(tab("仕事"))))
	b.waitJS("the order after reload", `[...document.querySelectorAll('.page h2')].map(h => h.textContent).join(',') === '旅行,危ない'`)
	b.screenshot("notes")

	// Link 旅行 to the chat: the chat's context now carries it.
	b.do("link a note", chromedp.Click(chromedp.CSS(`.page:nth-child(1) button[aria-pressed=false]`)))
	b.waitJS("the linked mark", `!!document.querySelector('.page:nth-child(1) .linked')`)
	var linked int
	if err := h.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM session_note_pages sn JOIN note_pages p ON p.id = sn.page_id WHERE sn.session_id = $1 AND p.title = '旅行'`, sid).Scan(&linked); err != nil {
		t.Fatal(err)
	}
	if linked != 1 {
		t.Errorf("旅行 linked to session %s: %d rows", session, linked)
	}
	b.noProblems("notes")

	// Memory: a summary of the conversation, deleted from the page.
	mem, err := db.InsertMemory(context.Background(), h.pool, db.MemoryParams{SessionID: sid, Content: "買い物の話をした。", PeriodStart: time.Now(), PeriodEnd: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	b.do("open memory", chromedp.Navigate(h.httpURL+"/memory"), chromedp.WaitVisible(chromedp.CSS(`#memories .entry`)))
	del := fmt.Sprintf(`#memories .entry[data-id="%d"] button.danger`, mem.ID)
	b.do("delete the summary", chromedp.Click(chromedp.CSS(del)), chromedp.Click(chromedp.CSS(del)))
	b.waitJS("the summary gone", fmt.Sprintf(`!document.querySelector('#memories .entry[data-id="%d"]')`, mem.ID))
	h.waitCount(t, fmt.Sprintf("SELECT count(*) FROM memories WHERE id = %d", mem.ID), 0)
	b.noProblems("memory")

	// The other screens open without a script error.
	for _, p := range []string{"/knowledge-base", "/logs", "/settings", "/reminders", "/channels"} {
		b.do("open "+p, chromedp.Navigate(h.httpURL+p), chromedp.WaitVisible(chromedp.CSS("main")))
		b.waitJS(p+" loaded", `!document.querySelector('main').textContent.includes('読み込み中')`)
		b.noProblems(p)
	}

	// A phone: one column.
	b.do("phone width", chromedp.EmulateViewport(390, 844), chromedp.Navigate(h.httpURL+"/?session="+session), chromedp.WaitVisible(chromedp.CSS(".msg.assistant")))
	cols := evalIn[string](b, `getComputedStyle(document.querySelector('.chat')).gridTemplateColumns`)
	if strings.Contains(strings.TrimSpace(cols), " ") {
		t.Errorf("at 390 px the chat has columns %q, want one", cols)
	}
	b.screenshot("phone")
	b.noProblems("phone")
}

// checkInert proves that no payload ran and no javascript: link survived.
func checkInert(t *testing.T, b *browserPage, where string) {
	t.Helper()
	got := evalIn[map[string]any](b, `({
		pwned: window.pwned ?? null,
		jsLinks: [...document.querySelectorAll('a[href]')].filter(a => a.href.trim().toLowerCase().startsWith('javascript:')).length,
		handlers: [...document.querySelectorAll('main *')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length,
		scripts: [...document.querySelectorAll('main script')].length,
	})`)
	if got["pwned"] != nil || got["jsLinks"] != float64(0) || got["handlers"] != float64(0) || got["scripts"] != float64(0) {
		t.Errorf("%s: the XSS payload is not inert: %v", where, got)
	}
}
