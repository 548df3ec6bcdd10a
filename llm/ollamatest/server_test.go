package ollamatest_test

import (
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

func TestServer(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel("qwen3", "completion", "tools")
	srv.AddModel("bge-m3", "embedding")
	c := srv.Client()
	ctx := t.Context()

	t.Run("heartbeat version tags", func(t *testing.T) {
		if err := c.Heartbeat(ctx); err != nil {
			t.Fatalf("Heartbeat: %v", err)
		}
		if v, err := c.Version(ctx); err != nil || v != ollamatest.Version {
			t.Errorf("Version = %q, %v", v, err)
		}
		list, err := c.List(ctx)
		if err != nil || len(list.Models) != 2 {
			t.Errorf("List = %+v, %v", list, err)
		}
	})
	t.Run("show and not found", func(t *testing.T) {
		resp, err := c.Show(ctx, &api.ShowRequest{Model: "qwen3:latest"})
		if err != nil || len(resp.Capabilities) != 2 {
			t.Fatalf("Show = %+v, %v", resp, err)
		}
		_, err = c.Show(ctx, &api.ShowRequest{Model: "nope"})
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || se.ErrorMessage != `model "nope" not found, try pulling it first` {
			t.Errorf("Show(nope) err = %#v", err)
		}
	})
	t.Run("stream false answers once", func(t *testing.T) {
		srv.Script(ollamatest.Text("a", "b", "c"))
		stream := false
		var got []api.ChatResponse
		err := c.Chat(ctx, &api.ChatRequest{Model: "qwen3", Stream: &stream, Messages: []api.Message{{Role: "user", Content: "x"}}},
			func(r api.ChatResponse) error { got = append(got, r); return nil })
		if err != nil || len(got) != 1 || got[0].Message.Content != "abc" || !got[0].Done {
			t.Errorf("Chat = %+v, %v", got, err)
		}
	})
	t.Run("default reply echoes", func(t *testing.T) {
		var content string
		err := c.Chat(ctx, &api.ChatRequest{Model: "qwen3", Messages: []api.Message{{Role: "user", Content: "おうむ返し"}}},
			func(r api.ChatResponse) error { content += r.Message.Content; return nil })
		if err != nil || content != "おうむ返し" {
			t.Errorf("echo = %q, %v", content, err)
		}
		if reqs := srv.Requests(); reqs[len(reqs)-1].Messages[0].Content != "おうむ返し" {
			t.Errorf("request not recorded")
		}
	})
	t.Run("embed is deterministic", func(t *testing.T) {
		a, err := c.Embed(ctx, &api.EmbedRequest{Model: "bge-m3", Input: []string{"猫 が 好き", "猫 が 好き", "dogs"}})
		if err != nil || len(a.Embeddings) != 3 {
			t.Fatalf("Embed = %+v, %v", a, err)
		}
		if !slices.Equal(a.Embeddings[0], a.Embeddings[1]) || slices.Equal(a.Embeddings[0], a.Embeddings[2]) {
			t.Errorf("embeddings not deterministic per text")
		}
		srv.SetEmbed(func(_, input string) []float32 { return []float32{float32(len(input))} })
		b, err := c.Embed(ctx, &api.EmbedRequest{Model: "bge-m3", Input: "abc"})
		if err != nil || !slices.Equal(b.Embeddings[0], []float32{3}) {
			t.Errorf("SetEmbed not used: %+v, %v", b, err)
		}
	})
	t.Run("down then up on the same url", func(t *testing.T) {
		srv.Down()
		if _, err := c.Version(ctx); err == nil {
			t.Fatal("Version succeeded while down")
		}
		srv.Up()
		if _, err := c.Version(ctx); err != nil {
			t.Fatalf("Version after Up: %v", err)
		}
	})
}
