package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// viewport makes the page as wide as a desktop (1280) or a phone (390).
func (b *browserPage) viewport(width, height int64, mobile bool) {
	b.t.Helper()
	b.do(fmt.Sprintf("viewport %d px", width), chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: height, DeviceScaleFactor: 1, Mobile: mobile})
		return err
	}))
}

// send types text into the chat's input and presses Enter. (CDP's Enter
// also sends a character event, which leaves a new line in the emptied
// input that a real keyboard would not.)
func (b *browserPage) send(text string) {
	b.t.Helper()
	b.typeInto("#input", text)
	b.keys("Enter", kb.Enter)
}

// TestRenameSurvivesReloadInBrowser: a conversation titled by its first
// message is renamed, and after a reload (and the next turn) the title and
// the list still have the new name.
func TestRenameSurvivesReloadInBrowser(t *testing.T) {
	a := openAdmin(t, nil)
	b := a.browserPage
	a.h.script(ollamatest.Text("晴れです。"), ollamatest.Text("どういたしまして。"))
	b.waitJS("the chat screen", `document.querySelector('#session-list .empty')?.textContent === 'まだ会話はありません。'`)
	b.send("明日の天気は？")
	b.waitJS("the answer", lastAssistant+`.includes('晴れです。') && document.querySelector('#stop').hidden && document.querySelector('#conv-title').textContent === '明日の天気は？'`)
	b.click("#rename")
	b.typeInto("#title-input", "天気の相談")
	b.keys("Enter", kb.Enter)
	renamed := `document.querySelector('#conv-title')?.textContent === '天気の相談' && document.querySelector('#session-list [aria-current="true"]')?.textContent.startsWith('天気の相談')`
	b.waitJS("the new name", renamed)
	a.reload()
	b.waitJS("the new name after a reload", renamed)
	b.screenshot("chat-renamed-reloaded")
	b.send("ありがとう")
	b.waitJS("the next answer", lastAssistant+`.includes('どういたしまして。') && document.querySelector('#stop').hidden`)
	a.reload()
	b.waitJS("the new name after the next turn and a reload", renamed)
	b.noProblems("rename")
}

// TestQueuedMessagesInBrowser: messages sent (Enter) while an answer is
// being written are not lost: each shows at once, greyed as 送信待ち with
// 取り消す, and is sent in order once the answer before it has ended, or
// was stopped; one taken back is never sent. Leaving the conversation
// hands a waiting message back to the input.
func TestQueuedMessagesInBrowser(t *testing.T) {
	a := openAdmin(t, nil)
	b := a.browserPage
	rest, never := make(chan struct{}), make(chan struct{})
	defer close(never)
	var mu sync.Mutex
	var asked []string // the user's messages, in the order the model got them
	a.h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		user := lastUserText(req)
		asked = append(asked, user)
		switch {
		case strings.Contains(user, "長い話"):
			return ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "前半です。"}, {Content: "後半です。", Wait: rest}}}
		case strings.Contains(user, "止める話"):
			return ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "途中まで"}, {Content: "…", Wait: never}}}
		}
		return ollamatest.Text(fmt.Sprintf("「%s」への答えです。", user))
	})
	b.waitJS("the chat screen", `document.querySelector('#session-list .empty')?.textContent === 'まだ会話はありません。'`)
	b.send("長い話をして")
	b.waitJS("the first half", lastAssistant+`.includes('前半です。')`)

	// Three messages while it streams; the last one is taken back.
	for _, text := range []string{"一つ目の追加", "二つ目の追加", "取り消す分"} {
		b.send(text)
	}
	queued := `[...document.querySelectorAll('.msg.user.queued')].map((m) => m.querySelector('.bubble').textContent + '|' + m.querySelector('.who').textContent.includes('送信待ち')).join(',')`
	b.waitJS("three waiting messages", queued+` === '一つ目の追加|true,二つ目の追加|true,取り消す分|true' && document.querySelector('#input').value.trim() === '' && !document.querySelector('#stop').hidden`)
	b.clickAt("取り消す of the third", `[...document.querySelectorAll('.msg.user.queued')].pop()?.querySelector('.msg-actions button')`)
	b.waitJS("two waiting messages", queued+` === '一つ目の追加|true,二つ目の追加|true'`)
	// What a person sees: the answer being written, the two waiting below it.
	b.viewport(1280, 800, false)
	b.waitJS("the desktop layout", `window.innerWidth === 1280`)
	b.screenshot("chat-queued-desktop")
	b.viewport(390, 844, true)
	b.waitJS("the phone layout", `window.innerWidth === 390 && document.documentElement.scrollWidth <= 390`)
	b.screenshot("chat-queued-phone")
	b.viewport(1280, 800, false)

	close(rest)
	users := `[...document.querySelectorAll('.msg.user:not(.queued) .bubble')].map((e) => e.textContent).join(',')`
	b.waitJS("both sent in order and answered", users+` === '長い話をして,一つ目の追加,二つ目の追加' && !document.querySelector('.msg.queued') && `+
		lastAssistant+`.includes('「二つ目の追加」への答えです。') && document.querySelector('#stop').hidden`)
	a.reload()
	b.waitJS("the same order after a reload", users+` === '長い話をして,一つ目の追加,二つ目の追加' && `+lastAssistant+`.includes('「二つ目の追加」への答えです。')`)

	// 停止 ends the answer, and the waiting message goes next.
	b.send("止める話をして")
	b.waitJS("the answer begins", lastAssistant+`.includes('途中まで')`)
	b.send("止めた後の質問")
	b.waitJS("one waiting message", queued+` === '止めた後の質問|true'`)
	b.click("#stop")
	b.waitJS("the waiting message sent after the stop", `!document.querySelector('.msg.queued') && `+lastAssistant+`.includes('「止めた後の質問」への答えです。') && document.querySelector('#stop').hidden`)

	// Leaving the conversation hands a waiting message back to the input.
	b.send("止める話をもう一度")
	b.waitJS("the answer begins again", `[...document.querySelectorAll('.msg.assistant .bubble')].filter((e) => e.textContent.includes('途中まで')).length === 2`)
	b.send("戻ってくる分")
	b.waitJS("one waiting message", queued+` === '戻ってくる分|true'`)
	b.click("#new-session")
	b.waitJS("the message back in the input", `document.querySelector('#input').value === '戻ってくる分' && !document.querySelector('.msg')`)
	b.noProblems("queued messages")

	mu.Lock()
	defer mu.Unlock()
	var order []string
	for _, u := range asked {
		for _, want := range []string{"長い話をして", "一つ目の追加", "二つ目の追加", "取り消す分", "止める話をして", "止めた後の質問", "戻ってくる分"} {
			if strings.Contains(u, want) {
				order = append(order, want)
			}
		}
	}
	if got, want := strings.Join(order, ","), "長い話をして,一つ目の追加,二つ目の追加,止める話をして,止めた後の質問"; !strings.HasPrefix(got, want) || strings.Contains(got, "取り消す分") || strings.Contains(got, "戻ってくる分") {
		t.Errorf("the model was asked %s, want %s first and nothing taken back", got, want)
	}
}

// TestRateLimitedInBrowser: over USER_RATE_LIMIT, 再生成 leaves the answer
// shown where it was and says why; a message refused goes back to the
// input instead of vanishing.
func TestRateLimitedInBrowser(t *testing.T) {
	a := openAdmin(t, map[string]string{"USER_RATE_LIMIT": "1/hour"})
	b := a.browserPage
	a.h.script(ollamatest.Text("一つ目の答え"))
	b.waitJS("the chat screen", `document.querySelector('#session-list .empty')?.textContent === 'まだ会話はありません。'`)
	b.send("質問")
	b.waitJS("the answer, kept", lastAssistant+`.includes('一つ目の答え') && [...document.querySelectorAll('.msg.assistant .msg-actions button')].some((e) => e.textContent === '再生成')`)
	b.clickText(".msg.assistant .msg-actions button", "再生成")
	notice := `[...document.querySelectorAll('#toasts .toast')].some((e) => e.textContent.includes('USER_RATE_LIMIT'))`
	b.waitJS("the notice, and the answer still there", notice+` && document.querySelectorAll('.msg').length === 2 && `+lastAssistant+`.includes('一つ目の答え') && !document.querySelector('.msg.error') && document.querySelector('#stop').hidden`)
	b.screenshot("chat-rate-limited")
	b.send("次の質問")
	b.waitJS("the refused message back in the input", `document.querySelector('#input').value.trim() === '次の質問' && document.querySelector('#stop').hidden`)
	a.reload()
	b.waitJS("the answer after a reload", lastAssistant+`.includes('一つ目の答え') && document.querySelectorAll('.msg').length === 2`)
	b.noProblems("rate limit", "USER_RATE_LIMIT")
}
