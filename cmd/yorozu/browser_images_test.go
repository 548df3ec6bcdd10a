package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/vision/visiontest"
)

// TestChatImagesInBrowser: on the admin page's chat a person attaches a
// picture with the button and pastes another; both reach a model that can
// see, and the history names them.
func TestChatImagesInBrowser(t *testing.T) {
	b := newBrowserPage(t)
	const password = "correct horse battery staple"
	// Capabilities are learnt at start, so the model can see before yorozu runs.
	h := startHarness(t, map[string]string{"ADMIN_PASSWORD": password}, func(h *harness) {
		h.ollama.AddModel(model, "completion", "tools", "vision")
	})
	h.script(ollamatest.Text("2 枚とも見えます。"))
	file := filepath.Join(t.TempDir(), "グラデーション.png")
	if err := os.WriteFile(file, visiontest.PNG(1600, 1200), 0o644); err != nil {
		t.Fatal(err)
	}

	b.do("log in", chromedp.Navigate(h.httpURL+"/login"), chromedp.WaitVisible(chromedp.CSS("#password")),
		chromedp.SendKeys(chromedp.CSS("#password"), password),
		chromedp.Click(chromedp.CSS("#login-form button")), chromedp.WaitVisible(chromedp.CSS("#input")))
	// The session list is drawn after the page's handlers are wired.
	b.waitJS("the page's script", `!document.querySelector('#session-list').textContent.includes('読み込み中')`)
	b.do("attach a file", chromedp.SetUploadFiles(chromedp.CSS("#image-file"), []string{file}))
	b.waitJS("the attached thumbnail", `document.querySelectorAll('#pending-images img').length === 1`)
	// A paste with a picture on the clipboard, as a screenshot tool leaves it.
	evalIn[bool](b, `(async () => {
		const c = document.createElement('canvas'); c.width = 300; c.height = 200;
		c.getContext('2d').fillRect(0, 0, 300, 200);
		const blob = await new Promise((r) => c.toBlob(r, 'image/png'));
		const dt = new DataTransfer();
		dt.items.add(new File([blob], 'image.png', { type: 'image/png' }));
		const input = document.querySelector('#input');
		input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
		return true;
	})()`)
	b.waitJS("both thumbnails", `document.querySelectorAll('#pending-images img').length === 2`)
	b.do("send", chromedp.SendKeys(chromedp.CSS("#input"), "この 2 枚は？"), chromedp.Click(chromedp.CSS("#send")))
	b.waitJS("the answer", `[...document.querySelectorAll('.msg.assistant .bubble')].some(e => e.textContent.includes('2 枚とも見えます。'))`)
	b.waitJS("the sent thumbnails in the user's bubble", `document.querySelectorAll('.msg.user .thumb').length === 2 && document.querySelector('#pending-images').hidden`)
	b.screenshot("chat-images")
	b.noProblems("chat with images")

	turns := h.turns()
	last := turns[len(turns)-1].Messages
	if got := last[len(last)-1]; got.Content != "この 2 枚は？" || len(got.Images) != 2 {
		t.Fatalf("model got %q with %d images, want the text and 2 images", got.Content, len(got.Images))
	}
	// The history, reloaded, names what was sent.
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#input")))
	b.waitJS("the kept image names", `[...document.querySelectorAll('.msg.user .image-list li')].map(e => e.textContent).join('|') === '🖼 グラデーション.png（1600×1200）|🖼 image.png（300×200）'`)
	b.noProblems("history with images")
}
