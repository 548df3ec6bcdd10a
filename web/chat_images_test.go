package web

import (
	"bytes"
	"image/jpeg"
	"net/http"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/vision/visiontest"
)

// An image uploaded with a message goes the way a Discord attachment does:
// checked, scaled, sent to a model that can see, and kept by name, size
// and dimensions.
func TestChatWithAnUploadedImage(t *testing.T) {
	a := newAPI(t)
	c := a.c
	a.ollama.AddModel("seer:latest", "completion", "vision")
	png := visiontest.LargePNG()
	a.ollama.Script(ollamatest.Text("グラデーションです。"))
	// No text at all: an image alone is a message.
	evs := readEvents(t, c.do("POST", "/chat/stream", streamRequest{Model: "seer",
		Images: []imageUpload{{Name: "grad.png", Type: "image/png", Data: png}}}))
	if got := eventTypes(evs); got != "session_id chunk done" {
		t.Fatalf("events = %s %+v", got, evs)
	}
	reqs := a.ollama.Requests()
	last := reqs[len(reqs)-1].Messages
	images := last[len(last)-1].Images
	if len(images) != 1 {
		t.Fatalf("model got %d images", len(images))
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(images[0]))
	if err != nil || cfg.Width != 1024 || cfg.Height != 768 {
		t.Errorf("model got %d×%d (%v), want a 1024×768 JPEG", cfg.Width, cfg.Height, err)
	}

	sessionID := int64(evs[0].Value.(float64))
	var msgs []messageJSON
	c.call("GET", "/chat/sessions/"+itoa(sessionID)+"/messages", nil, &msgs)
	want := db.MessageImage{Name: "grad.png", ContentType: "image/png", Size: len(png), Width: 4000, Height: 3000, SentWidth: 1024, SentHeight: 768}
	if len(msgs) != 2 || len(msgs[0].Images) != 1 || msgs[0].Images[0] != want || msgs[1].Images != nil {
		t.Fatalf("history = %+v, want the user message with %+v", msgs, want)
	}
	var list []sessionJSON
	c.call("GET", "/chat/sessions", nil, &list)
	if list[0].Title != "画像: grad.png" {
		t.Errorf("title = %q", list[0].Title)
	}

	// The default model cannot see: the answer comes, then the note.
	a.ollama.Script(ollamatest.Text("文字は読めます。"))
	evs = readEvents(t, c.do("POST", "/chat/stream", streamRequest{SessionID: sessionID, Message: "これは？", Model: testModel,
		Images: []imageUpload{{Name: "grad.png", Type: "image/png", Data: png}}}))
	var text strings.Builder
	for _, e := range evs {
		if e.Type == "chunk" {
			text.WriteString(e.Value.(string))
		}
	}
	wantText := "文字は読めます。\n\n※ このモデル（qwen3:4b）は画像を見られないため、画像は読んでいません。画像を見られるモデル: seer:latest"
	if text.String() != wantText {
		t.Errorf("read %q, want %q", text.String(), wantText)
	}
	reqs = a.ollama.Requests()
	if last := reqs[len(reqs)-1].Messages; len(last[len(last)-1].Images) != 0 {
		t.Error("a model without vision got the image")
	}

	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"nothing at all", streamRequest{}, "message"},
		{"an image without data", streamRequest{Message: "見て", Images: []imageUpload{{Name: "x.png", Type: "image/png"}}}, "images[0].data"},
		{"data that is not base64", `{"message": "見て", "images": [{"name": "x.png", "data": "%%%"}]}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, e := c.callErr("POST", "/chat/stream", tc.body); code != http.StatusBadRequest || e.Field != tc.field {
				t.Errorf("= %d %+v, want 400 naming %q", code, e, tc.field)
			}
		})
	}
}
