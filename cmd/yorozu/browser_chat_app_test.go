package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// lastAssistant is the text of the last answer on the page.
const lastAssistant = "([...document.querySelectorAll('.msg.assistant .bubble')].pop()?.textContent ?? '')"

// lastMessage is the whole of the last answer as shown: its text and what
// the page puts beside it.
const lastMessage = "([...document.querySelectorAll('.msg.assistant')].pop()?.textContent ?? '')"

// TestChatAppInBrowser: the chat works as people expect a chat app to. An
// answer is the server's: a reload mid-answer shows it so far and the rest
// as it comes; 停止 keeps it, marked, after a reload too, and the next
// request to the model reads the mark. Tools and sources come back with the
// history. Enter sends, Shift+Enter is a new line, and Enter confirming an
// IME conversion never sends. Search finds 東京タワー and 天気 and jumps to
// the message. A Discord conversation shows its users by name.
func TestChatAppInBrowser(t *testing.T) {
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"query":"q","results":[{"title":"東京タワー公式","url":"https://example.com/tower","content":"高さ 333 m"}]}`)
	}))
	defer searx.Close()
	a := openAdmin(t, map[string]string{"SEARCH_BACKEND": "searxng", "SEARXNG_URL": searx.URL})
	h, b := a.h, a.browserPage
	b.noProblems("login")

	rest, never := make(chan struct{}), make(chan struct{})
	defer close(never)
	var mu sync.Mutex
	var seen []api.ChatRequest
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, req)
		last, user := req.Messages[len(req.Messages)-1], lastUserText(req)
		switch {
		case strings.Contains(user, "長い話"):
			return ollamatest.Reply{Chunks: []ollamatest.Chunk{
				{Content: "一文目です。"}, {Content: "二文目です。", Wait: rest}, {Content: "最後の文です。"},
			}}
		case strings.Contains(user, "止めて"):
			return ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "途中まで書きました"}, {Content: "…", Wait: never}}}
		case strings.Contains(user, "東京タワー") && last.Role == "user":
			return ollamatest.ToolCalls(ollamatest.Call("web_search", map[string]any{"query": "東京タワー 高さ"}))
		case strings.Contains(user, "東京タワー"):
			return ollamatest.Text("東京タワーの高さは 333 m です。")
		}
		return ollamatest.Text("明日の天気は晴れです。")
	})

	// Enter sends (no Ctrl); the answer is cut off by a reload half-way.
	b.waitJS("the chat screen", `document.querySelector('#session-list .empty')?.textContent === 'まだ会話はありません。'`)
	b.typeInto("#input", "長い話をして")
	b.keys("Enter", kb.Enter)
	b.waitJS("the first sentence", lastAssistant+`.includes('一文目です。')`)
	a.reload()
	b.waitJS("the answer so far after the reload", lastAssistant+`.includes('一文目です。') && !document.querySelector('#stop').hidden`)
	b.screenshot("chat-app-resumed")
	close(rest)
	b.waitJS("the whole answer after the reload", lastAssistant+`.includes('最後の文です。') && document.querySelector('#stop').hidden`)
	b.noProblems("reload mid-answer")

	// 停止 keeps what was written, shown with the mark, after a reload too;
	// the mark is not part of the answer (コピー and the model leave it out).
	b.typeInto("#input", "止めてみて")
	b.keys("Enter", kb.Enter)
	b.waitJS("the answer begins", lastAssistant+`.includes('途中まで書きました')`)
	b.click("#stop")
	b.waitJS("the stopped mark", lastMessage+`.includes('（停止しました）') && document.querySelector('.msg.assistant:last-of-type')?.classList.contains('stopped')`)
	a.reload()
	b.waitJS("the stopped answer after a reload", lastAssistant+`.includes('途中まで書きました') && `+lastMessage+`.includes('（停止しました）') && !`+lastAssistant+`.includes('停止しました')`)
	b.screenshot("chat-app-stopped")

	// The next request to the model holds the stopped answer, without the mark.
	b.typeInto("#input", "東京タワーの高さは？")
	b.keys("Enter", kb.Enter)
	b.waitJS("the tool and its source", `[...document.querySelectorAll('.msg.assistant .tools li')].some((li) => li.textContent.includes('Web 検索'))`)
	b.waitJS("the answer", lastAssistant+`.includes('333 m') && document.querySelector('#stop').hidden`)
	mu.Lock()
	var marked bool
	for _, m := range seen[len(seen)-1].Messages {
		if m.Role == "assistant" && strings.Contains(m.Content, "停止しました") {
			t.Errorf("the model's next request holds the mark the page shows: %q", m.Content)
		}
		marked = marked || (m.Role == "assistant" && strings.Contains(m.Content, "途中まで書きました"))
	}
	mu.Unlock()
	if !marked {
		t.Errorf("the model's next request does not hold the stopped answer")
	}
	// Tools and sources are kept with the answer.
	a.reload()
	b.waitJS("the tool line after a reload", `[...document.querySelectorAll('.msg.assistant .tools li.done')].some((li) => li.textContent.includes('Web 検索') && li.textContent.includes('東京タワー 高さ'))`)
	b.waitJS("the source after a reload", `[...document.querySelectorAll('.msg.assistant .sources a')].some((a) => a.href === 'https://example.com/tower')`)
	b.screenshot("chat-app-tools-kept")
	b.noProblems("stop and tools")

	// Keyboard: Shift+Enter is a new line; Enter while an IME composes
	// never sends; Enter after it does.
	b.typeInto("#input", "一行目")
	b.do("Shift+Enter", chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierShift)))
	if got := evalIn[string](b, `document.querySelector('#input').value`); got != "一行目\n" {
		t.Errorf("after Shift+Enter the input holds %q, want a new line", got)
	}
	users := evalIn[int](b, `document.querySelectorAll('.msg.user').length`)
	kept := evalIn[string](b, `(() => {
		const input = document.querySelector('#input');
		input.value = 'あした';
		input.dispatchEvent(new CompositionEvent('compositionstart', { data: '' }));
		input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', keyCode: 229, isComposing: true, bubbles: true, cancelable: true }));
		input.value = '明日の天気';
		input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', keyCode: 13, isComposing: true, bubbles: true, cancelable: true }));
		return input.value;
	})()`)
	if kept != "明日の天気" || evalIn[int](b, `document.querySelectorAll('.msg.user').length`) != users {
		t.Errorf("Enter during an IME composition sent the message (input now %q)", kept)
	}
	evalIn[bool](b, `(document.querySelector('#input').dispatchEvent(new CompositionEvent('compositionend', { data: '明日の天気' })), true)`)
	b.waitJS("the composition over", `new Promise((r) => setTimeout(() => r(true), 50))`)
	b.do("focus", chromedp.Focus(chromedp.CSS("#input")))
	b.keys("Enter", kb.Enter)
	b.waitJS("the message sent after the conversion", `[...document.querySelectorAll('.msg.user .bubble')].some((e) => e.textContent === '明日の天気') && `+lastAssistant+`.includes('晴れ')`)
	b.waitJS("sending done", `document.querySelector('#stop').hidden`)

	// Search across conversations: a two-character word too.
	for _, q := range []string{"東京タワー", "天気"} {
		b.typeInto("#search", q)
		b.waitJS("search results for "+q, fmt.Sprintf(`[...document.querySelectorAll('#search-results .snippet')].some((e) => e.textContent.includes(%s))`, jsString(q)))
	}
	b.screenshot("chat-app-search")
	b.click("#search-results li button")
	b.waitJS("the message found", `document.querySelector('.msg.hit')?.textContent.includes('天気')`)
	hits := evalIn[int](b, `fetch('/api/search?q=' + encodeURIComponent('東京タワー')).then((r) => r.json()).then((j) => j.filter((x) => x.session_id && x.message_id && x.snippet && x.created_at).length)`)
	if hits < 2 {
		t.Errorf("GET /api/search?q=東京タワー found %d messages, want the question and the answer", hits)
	}
	b.noProblems("keyboard and search")

	// A Discord conversation, read-only, names its users.
	h.mention("hanako", "こんにちは、天気を教えて")
	h.waitReply(t, 1, func(string) bool { return true })
	h.waitCount(t, `SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.source = 'discord' AND m.role = 'assistant'`, 1)
	var author string
	if err := h.pool.QueryRow(context.Background(), `SELECT author_name FROM messages WHERE role = 'user' AND author_name <> '' AND session_id IN (SELECT id FROM sessions WHERE source = 'discord')`).Scan(&author); err != nil {
		t.Fatal(err)
	}
	a.reload()
	b.waitJS("the Discord conversation", `[...document.querySelectorAll('#session-list button')].some((e) => e.textContent.includes('Discord'))`)
	b.do("open it", chromedp.Click(chromedp.CSS(`#session-list li:first-child button`)))
	b.waitJS("the user's name", fmt.Sprintf(`document.querySelector('.msg.user .who')?.textContent.startsWith(%s)`, jsString(author)))
	b.screenshot("chat-app-discord")

	// The logs name conversations by title and show the stopped call as
	// stopped, not failed.
	a.open("/logs")
	b.waitJS("titles in the logs", `[...document.querySelectorAll('#logs td a')].some((a) => a.textContent === '長い話をして')`)
	b.waitJS("the stopped call", `[...document.querySelectorAll('#logs tr.stopped')].length >= 1 && ![...document.querySelectorAll('#logs tr.error')].some((tr) => tr.textContent.includes('context canceled'))`)
	b.screenshot("chat-app-logs")
	b.noProblems("discord and logs")

}

// TestEveryScreenFitsAPhone: at 390 px wide no screen scrolls sideways, the
// menu is a button that opens the screens, and River's job page links back.
func TestEveryScreenFitsAPhone(t *testing.T) {
	a := openAdmin(t, nil)
	b := a.browserPage
	a.h.script(ollamatest.Text("はい、" + strings.Repeat("とても長い一文を書きます。", 20) + "\n\n```go\nfmt.Println(\"" + strings.Repeat("x", 120) + "\")\n```"))
	b.do("phone width", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true})
		return err
	}))
	a.open("/")
	b.waitJS("the chat screen", `document.querySelector('#session-list .empty')?.textContent === 'まだ会話はありません。'`)
	b.typeInto("#input", "長い答えをください")
	b.keys("Enter", kb.Enter)
	b.waitJS("the answer", lastAssistant+`.includes('Println') && document.querySelector('#stop').hidden`)
	for _, path := range []string{"/", "/notes", "/memory", "/knowledge-base", "/logs", "/settings", "/reminders", "/channels"} {
		a.open(path)
		b.waitJS("the screen "+path, `document.readyState === 'complete' && !document.querySelector('main .empty')?.textContent.includes('読み込み中')`)
		b.waitJS("the screen "+path+" settled", `new Promise((r) => setTimeout(() => r(true), 300))`)
		if w := evalIn[[]float64](b, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] {
			b.screenshot("phone-wide" + strings.ReplaceAll(path, "/", "-"))
			t.Errorf("%s at 390 px is %v px wide: it scrolls sideways", path, w[0])
		}
		b.screenshot("phone" + strings.ReplaceAll(path, "/", "-"))
	}
	a.open("/")
	b.waitJS("the menu button", `getComputedStyle(document.querySelector('#menu')).display !== 'none' && getComputedStyle(document.querySelector('.top nav')).display === 'none'`)
	b.click("#menu")
	b.waitJS("the menu open", `[...document.querySelectorAll('.top nav a')].every((a) => { const r = a.getBoundingClientRect(); return r.width > 0 && r.right <= window.innerWidth; })`)
	b.screenshot("phone-menu")
	a.open("/jobs/")
	b.waitJS("the way back from ジョブ", `document.querySelector('#yorozu-back')?.getAttribute('href') === '/'`)
	b.screenshot("phone-jobs")
	// River's own UI evaluates code, which the page's CSP refuses; it is not yorozu's.
	b.noProblems("phone", "CSP violation: script-src eval at")
}

// TestChatVersionsInBrowser: 再生成 keeps both answers, ‹ › under the answer
// switches them, and the next request to the model reads the one shown;
// 編集 sends a message again as a new version of the question, switched
// under the question (‹ 2/2 ›, not one more of its answers), the old
// question with its own answers' switch a click away.
func TestChatVersionsInBrowser(t *testing.T) {
	a := openAdmin(t, nil)
	h, b := a.h, a.browserPage
	var mu sync.Mutex
	var n int
	var lastReq api.ChatRequest
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		n++
		lastReq = req
		return ollamatest.Text(fmt.Sprintf("答えその%d（%s）", n, lastUserText(req)))
	})
	b.waitJS("the chat screen", `document.querySelector('#session-list .empty')?.textContent === 'まだ会話はありません。'`)
	b.typeInto("#input", "質問A")
	b.keys("Enter", kb.Enter)
	regen := `[...document.querySelectorAll('.msg.assistant .msg-actions button')].some((e) => e.textContent === '再生成')`
	b.waitJS("the answer, kept", lastAssistant+`.includes('答えその1') && `+regen)
	b.do("再生成", chromedp.Click(chromedp.CSS(`.msg.assistant .msg-actions button:nth-of-type(2)`)))
	b.waitJS("the second answer, version 2/2", lastAssistant+`.includes('答えその2') && document.querySelector('.msg.assistant .alt-pos')?.textContent === '2/2' && document.querySelectorAll('.msg').length === 2`)
	b.screenshot("chat-versions-regenerated")
	b.click(`.msg.assistant .alt button[aria-label="前の答え"]`)
	b.waitJS("version 1/2", lastAssistant+`.includes('答えその1') && document.querySelector('.msg.assistant .alt-pos')?.textContent === '1/2'`)
	b.typeInto("#input", "次の質問")
	b.keys("Enter", kb.Enter)
	b.waitJS("the next answer", lastAssistant+`.includes('答えその3') && document.querySelector('#stop').hidden`)
	mu.Lock()
	var sawFirst, sawSecond bool
	for _, m := range lastReq.Messages {
		sawFirst = sawFirst || strings.Contains(m.Content, "答えその1")
		sawSecond = sawSecond || strings.Contains(m.Content, "答えその2")
	}
	mu.Unlock()
	if !sawFirst || sawSecond {
		t.Errorf("the next request holds version 1: %v, version 2: %v; want only the one shown", sawFirst, sawSecond)
	}

	// 編集 the first question: a new version from there.
	b.waitJS("the actions", `document.querySelectorAll('.msg.user .msg-actions button').length >= 4`)
	b.do("編集", chromedp.Click(chromedp.CSS(`.msg.user .msg-actions button:nth-of-type(2)`)))
	b.typeInto(".msg-edit textarea", "質問B")
	b.do("send the edit", chromedp.Click(chromedp.CSS(`.msg-edit button[type=submit]`)))
	// Two questions (A and B); B has one answer, so no switch under it.
	b.waitJS("the edited version", `document.querySelector('.msg.user .bubble')?.textContent === '質問B' && document.querySelector('.msg.user .alt-pos')?.textContent === '2/2' &&
		!document.querySelector('.msg.assistant .alt') && `+lastAssistant+`.includes('答えその4') && document.querySelectorAll('.msg').length === 2`)
	b.screenshot("chat-versions-edited")
	b.click(`.msg.user .alt button[aria-label="前の質問"]`)
	// Question A comes back with its newest answer and its answers' switch.
	b.waitJS("question 1/2, answer 2/2", `document.querySelector('.msg.user .bubble')?.textContent === '質問A' && `+lastAssistant+`.includes('答えその2') &&
		document.querySelector('.msg.user .alt-pos')?.textContent === '1/2' && document.querySelector('.msg.assistant .alt-pos')?.textContent === '2/2'`)
	b.click(`.msg.assistant .alt button[aria-label="前の答え"]`)
	b.waitJS("answer 1/2, whole", `document.querySelectorAll('.msg').length === 4 && `+lastAssistant+`.includes('答えその3') &&
		document.querySelector('.msg.user .alt-pos')?.textContent === '1/2' && document.querySelector('.msg.assistant .alt-pos')?.textContent === '1/2'`)
	// Every switch is a target of at least 24 × 24 px.
	for _, r := range evalIn[[][]float64](b, `[...document.querySelectorAll('.msg-actions button')].map((e) => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })`) {
		if r[0] < 24 || r[1] < 24 {
			t.Errorf("a message action is %.0f×%.0f px, want at least 24×24", r[0], r[1])
		}
	}
	b.screenshot("chat-versions")
	b.noProblems("versions")
}

// TestSwitchDuringAnswerInBrowser: opening another conversation while an
// answer streams works; the answer goes on on the server, the list marks
// it 応答中, and coming back shows it so far and then whole.
func TestSwitchDuringAnswerInBrowser(t *testing.T) {
	a := openAdmin(t, nil)
	b := a.browserPage
	rest := make(chan struct{})
	a.h.script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "前半です。"}, {Content: "後半です。", Wait: rest}}})
	b.waitJS("the chat screen", `document.querySelector('#session-list .empty')?.textContent === 'まだ会話はありません。'`)
	b.typeInto("#input", "長い話をして")
	b.keys("Enter", kb.Enter)
	b.waitJS("the first half", lastAssistant+`.includes('前半です。')`)
	b.click("#new-session")
	b.waitJS("a new conversation", `document.querySelector('#conv-title').textContent === '新しい会話' && !document.querySelector('.msg') && document.querySelector('#stop').hidden && !document.querySelector('#send').disabled`)
	b.waitJS("the other one listed as answering", `[...document.querySelectorAll('#session-list button')].some((e) => e.textContent.includes('長い話をして') && e.textContent.includes('応答中'))`)
	b.screenshot("chat-app-switched")
	b.do("back to it", chromedp.Click(chromedp.CSS(`#session-list li:first-child button`)))
	b.waitJS("the answer so far", lastAssistant+`.includes('前半です。') && !document.querySelector('#stop').hidden`)
	close(rest)
	b.waitJS("the whole answer", lastAssistant+`.includes('後半です。') && document.querySelector('#stop').hidden`)
	b.noProblems("switching")
}
