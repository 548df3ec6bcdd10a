package llm_test

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

const visionModel = "seer:latest"

func withImage(text string, img []byte) []api.Message {
	msgs := userMsg(text)
	msgs[len(msgs)-1].Images = []api.ImageData{img}
	return msgs
}

func TestImagesGoOnlyToVisionModels(t *testing.T) {
	srv := newServer(t)
	srv.AddModel(visionModel, "completion", "vision")
	rec := &recorder{}
	p := newPipeline(srv, rec)
	img := bytes.Repeat([]byte{0xff, 0xd8, 0xff}, 1000)

	for _, model := range []string{visionModel, plainModel} {
		srv.Script(ollamatest.Text("見ました。"))
		if _, err := p.Run(t.Context(), llm.Request{Model: model, Messages: withImage("これは何？", img)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if got := reqs[0].Messages[len(reqs[0].Messages)-1].Images; len(got) != 1 || !bytes.Equal(got[0], img) {
		t.Errorf("vision model got images %d, want the one sent", len(got))
	}
	if got := reqs[1].Messages[len(reqs[1].Messages)-1]; len(got.Images) != 0 || got.Content != "これは何？" {
		t.Errorf("model without vision got %+v, want the text alone", got)
	}

	// The call log names the image's size instead of keeping its bytes.
	calls := rec.all()
	logged := string(calls[0].Request)
	if !strings.Contains(logged, `"images":["\u003cimage, 3000 bytes\u003e"]`) && !strings.Contains(logged, `"images":["<image, 3000 bytes>"]`) {
		t.Errorf("logged request lacks the image note: %s", logged)
	}
	if len(logged) > 2000 || !strings.Contains(logged, "これは何？") {
		t.Errorf("logged request (%d bytes) = %s", len(logged), logged)
	}
}

// clock is a settable clock for the pipeline.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestVisionModels(t *testing.T) {
	srv := newServer(t)
	srv.AddModel("seer-b:7b", "completion", "vision", "tools")
	srv.AddModel(visionModel, "completion", "vision")
	clk := &clock{now: time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)}
	p := llm.New(llm.Options{Client: srv.Client(), Now: clk.Now})

	got, err := p.VisionModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"seer-b:7b", visionModel}; !slices.Equal(got, want) {
		t.Errorf("VisionModels = %v, want %v", got, want)
	}
	shows := srv.ShowCalls()

	// Asked again within the minute: nothing new is asked of Ollama, and a
	// model pulled meanwhile shows up once the list is a minute old.
	srv.AddModel("later:latest", "completion", "vision")
	if got, _ := p.VisionModels(t.Context()); len(got) != 2 {
		t.Errorf("within the minute: %v", got)
	}
	if n := srv.ShowCalls(); n != shows {
		t.Errorf("the second ask made %d more /api/show calls", n-shows)
	}
	clk.add(2 * time.Minute)
	if got, _ := p.VisionModels(t.Context()); !slices.Contains(got, "later:latest") {
		t.Errorf("after a minute: %v lacks the new model", got)
	}

	srv.Down()
	clk.add(2 * time.Minute)
	if _, err := p.VisionModels(t.Context()); err == nil {
		t.Error("Ollama down: no error")
	}
}
