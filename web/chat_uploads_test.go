package web

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// memoPDF is a one-page PDF that says line.
func memoPDF(t *testing.T, line string) []byte {
	t.Helper()
	f := fpdf.New("P", "mm", "A4", "")
	f.SetFont("Helvetica", "", 11)
	f.AddPage()
	f.Cell(0, 7, line)
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A text file and a PDF uploaded with a message are read and kept as
// Discord's attached files are: the model is given their text with the
// question, the conversation lists them, and a file that cannot be read
// gets a line after the answer instead of being lost silently.
func TestChatWithUploadedFiles(t *testing.T) {
	a := newAPI(t)
	c := a.c
	a.ollama.Script(ollamatest.Text("合計は215です。"))
	evs := readEvents(t, c.do("POST", "/chat/stream", streamRequest{Message: "売上の合計は？", Files: []imageUpload{
		{Name: "sales.csv", Type: "text/csv", Data: []byte("month,sales\nJan,120\nFeb,95\n")},
		{Name: "memo.pdf", Type: "application/pdf", Data: memoPDF(t, "Meeting moved to Friday 15:00")},
		{Name: "a.zip", Type: "application/zip", Data: []byte("PK")},
	}}))
	if got := eventTypes(evs); !strings.HasPrefix(got, "session_id chunk") || !strings.HasSuffix(got, "done") {
		t.Fatalf("events = %s %+v", got, evs)
	}
	reqs := a.ollama.Requests()
	last := reqs[len(reqs)-1].Messages
	asked := last[len(last)-1].Content
	for _, want := range []string{"売上の合計は？", "sales.csv", "Feb,95", "memo.pdf", "Meeting moved to Friday 15:00"} {
		if !strings.Contains(asked, want) {
			t.Errorf("the model was not given %q:\n%s", want, asked)
		}
	}
	var text strings.Builder
	for _, e := range evs {
		if e.Type == "chunk" {
			text.WriteString(e.Value.(string))
		}
	}
	if want := "合計は215です。\n\n※「a.zip」は読めない種類のファイルです"; !strings.HasPrefix(text.String(), want) {
		t.Errorf("answer %q, want it to start with %q", text.String(), want)
	}

	sessionID := int64(evs[0].Value.(float64))
	var files []fetchedFileJSON
	c.call("GET", "/chat/sessions/"+itoa(sessionID)+"/files", nil, &files)
	kept := map[string]string{}
	for _, f := range files {
		kept[f.Title] = f.MediaType + " " + f.Tool
	}
	if len(kept) != 2 || kept["sales.csv"] != "csv web_attachment" || kept["memo.pdf"] != "pdf web_attachment" {
		t.Errorf("kept %v, want sales.csv and memo.pdf as the admin page's attachments", kept)
	}

	// A file alone is a message; its name titles the conversation.
	a.ollama.Script(ollamatest.Text("読みました。"))
	evs = readEvents(t, c.do("POST", "/chat/stream", streamRequest{Files: []imageUpload{{Name: "note.txt", Type: "text/plain", Data: []byte("hello")}}}))
	var list []sessionJSON
	c.call("GET", "/chat/sessions", nil, &list)
	if eventTypes(evs) == "" || list[0].Title != "ファイル: note.txt" {
		t.Errorf("title = %q after %s", list[0].Title, eventTypes(evs))
	}

	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"a file without data", streamRequest{Message: "読んで", Files: []imageUpload{{Name: "x.txt", Type: "text/plain"}}}, "files[0].data"},
		{"data that is not base64", `{"message": "読んで", "files": [{"name": "x.txt", "data": "%%%"}]}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, e := c.callErr("POST", "/chat/stream", tc.body); code != http.StatusBadRequest || e.Field != tc.field {
				t.Errorf("= %d %+v, want 400 naming %q", code, e, tc.field)
			}
		})
	}
}
