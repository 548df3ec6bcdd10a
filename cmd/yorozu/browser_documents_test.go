package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/go-pdf/fpdf"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestChatDocumentsInBrowser: on the admin page's chat a person attaches a
// text file and a PDF with the 添付 button, as they would on Discord; the
// model is given the text of both with the question, and the page shows
// which files went with the message, at desktop and phone width.
func TestChatDocumentsInBrowser(t *testing.T) {
	b := newBrowserPage(t)
	const password = "correct horse battery staple"
	h := startHarness(t, map[string]string{"ADMIN_PASSWORD": password}, nil)
	h.script(ollamatest.Text("金曜の15時に変わりました。持ち物は名札です。"))
	dir := t.TempDir()
	memo := filepath.Join(dir, "持ち物.txt")
	if err := os.WriteFile(memo, []byte("持ち物: 名札、筆記用具\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pdf := filepath.Join(dir, "notice.pdf")
	f := fpdf.New("P", "mm", "A4", "")
	f.SetFont("Helvetica", "", 11)
	f.AddPage()
	f.Cell(0, 7, "The meeting moves to Friday 15:00.")
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pdf, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	b.do("desktop width", chromedp.EmulateViewport(1280, 800))
	b.do("log in", chromedp.Navigate(h.httpURL+"/login"), chromedp.WaitVisible(chromedp.CSS("#password")),
		chromedp.SendKeys(chromedp.CSS("#password"), password),
		chromedp.Click(chromedp.CSS("#login-form button")), chromedp.WaitVisible(chromedp.CSS("#input")))
	b.waitJS("the page's script", `!document.querySelector('#session-list').textContent.includes('読み込み中')`)
	b.do("attach two documents", chromedp.SetUploadFiles(chromedp.CSS("#image-file"), []string{memo, pdf}))
	b.waitJS("both files waiting by name", `[...document.querySelectorAll('#pending-images .file-chip')].map(e => e.textContent).join('|') === '持ち物.txt|notice.pdf'`)
	b.do("ask", chromedp.SendKeys(chromedp.CSS("#input"), "会議はいつ？持ち物は？"), chromedp.Click(chromedp.CSS("#send")))
	b.waitJS("the answer", `[...document.querySelectorAll('.msg.assistant .bubble')].some(e => e.textContent.includes('金曜の15時に変わりました。'))`)
	b.waitJS("the files in the user's bubble", `document.querySelectorAll('.msg.user .file-chip').length === 2 && document.querySelector('#pending-images').hidden`)
	b.screenshot("chat-documents-1280")
	b.do("phone width", chromedp.EmulateViewport(390, 844))
	b.screenshot("chat-documents-390")
	b.noProblems("chat with documents")

	turns := h.turns()
	last := turns[len(turns)-1].Messages
	asked := last[len(last)-1].Content
	for _, want := range []string{"会議はいつ？持ち物は？", "持ち物.txt", "名札、筆記用具", "notice.pdf", "The meeting moves to Friday 15:00."} {
		if !strings.Contains(asked, want) {
			t.Errorf("the model was not given %q:\n%s", want, asked)
		}
	}
}
