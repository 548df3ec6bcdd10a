package commands

import (
	"context"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// threads says which channels are threads of which.
type threads map[string]string

func (t threads) ThreadParent(_ context.Context, id string) (string, error) { return t[id], nil }

// /persona and /model against a real database and a fake Ollama: set in a
// channel, inherited by its thread, server defaults, reset, a model Ollama
// lacks, Ollama down, and autocomplete.
func TestChannelSettings(t *testing.T) {
	pool := dbtest.New(t)
	ollama := ollamatest.New(t)
	ollama.AddModel("qwen3:8b", "completion", "tools")
	ollama.AddModel("gemma3:4b", "completion", "vision")
	servers := llm.NewPool(llm.PoolOptions{Servers: []llm.PoolServer{{Name: "ollama", Backend: ollama.Client()}}})
	c := &Channels{DB: pool, Models: servers, Parents: threads{"th1": "c1"}, DefaultModel: func() string { return "qwen3:4b" }, Log: quiet}
	persona, model := c.Persona(), c.Model()
	use := func(cmd Command, channel, sub string, opts map[string]any) string {
		t.Helper()
		req := Request{Command: cmd.Name, Subcommand: sub, UserID: "u1", GuildID: "g1", ChannelID: channel, Perms: ManageChannels, Options: opts}
		if !req.Can(cmd.Required(sub)) {
			t.Fatalf("/%s %s refused", cmd.Name, sub)
		}
		return cmd.Run(t.Context(), req).Text
	}

	steps := []struct {
		name string
		got  func() string
		want string
	}{
		{"nothing set", func() string { return use(persona, "c1", "show", nil) }, "よろずの既定（default）"},
		{"set in a channel", func() string { return use(persona, "c1", "set", map[string]any{"text": "あなたは海賊です。"}) }, "このチャンネルのペルソナを設定しました（9 文字）"},
		{"a thread inherits it", func() string { return use(persona, "th1", "show", nil) }, "いまのペルソナ：親チャンネルの設定（channel）\nあなたは海賊です。"},
		{"too long", func() string {
			return use(persona, "c1", "set", map[string]any{"text": strings.Repeat("長", db.MaxPersonaChars+1)})
		}, "2000 文字までです（送られたのは 2001 文字）"},
		{"empty", func() string { return use(persona, "c1", "set", map[string]any{"text": "  "}) }, "`text` に入れてください"},
		{"server default", func() string {
			return use(persona, "c2", "set", map[string]any{"text": "丁寧に", "scope": "server"})
		}, "このサーバーの既定のペルソナを設定しました"},
		{"reset falls back to the server", func() string { return use(persona, "c1", "reset", nil) }, "いまはサーバーの既定（server）が使われます"},
		{"model nothing set", func() string { return use(model, "c1", "show", nil) }, "いまのモデル：qwen3:4b、よろずの既定（default）"},
		{"model set", func() string { return use(model, "c1", "set", map[string]any{"name": "qwen3:8b"}) }, "このチャンネルのモデルを qwen3:8b にしました"},
		{"model Ollama lacks", func() string { return use(model, "c1", "set", map[string]any{"name": "llama9"}) }, "`ollama pull llama9`"},
		{"model in a thread", func() string { return use(model, "th1", "show", nil) }, "いまのモデル：qwen3:8b、親チャンネルの設定（channel）"},
		{"model reset", func() string { return use(model, "c1", "reset", nil) }, "いまはよろずの既定（default）の qwen3:4b が使われます"},
		{"unknown subcommand", func() string { return use(model, "c1", "other", nil) }, unsupportedReply},
	}
	for _, s := range steps {
		if got := s.got(); !strings.Contains(got, s.want) {
			t.Errorf("%s: %q, want it to contain %q", s.name, got, s.want)
		}
	}

	choices := model.Complete(t.Context(), Request{Command: "model", Subcommand: "set", Focused: "name", Options: map[string]any{"name": " QW"}})
	if len(choices) != 1 || choices[0].Value != "qwen3:8b" {
		t.Errorf("autocomplete of \"QW\" = %+v, want qwen3:8b alone", choices)
	}
	if got := use(persona, "c9", "show", nil); !strings.Contains(got, "いまのペルソナ：サーバーの既定（server）\n丁寧に") {
		t.Errorf("a channel with nothing of its own = %q", got)
	}
	req := Request{Command: "persona", Subcommand: "set", UserID: "u1", ChannelID: "dm1", Perms: All, Options: map[string]any{"text": "x"}}
	if got := persona.Run(t.Context(), req).Text; !strings.Contains(got, "この DMのペルソナを設定しました") {
		t.Errorf("set in a DM = %q", got)
	}
	req = Request{Command: "persona", Subcommand: "set", ChannelID: "dm1", Perms: All, Options: map[string]any{"text": "x", "scope": "server"}}
	if got := persona.Run(t.Context(), req).Text; !strings.Contains(got, "DM にはサーバーがありません") {
		t.Errorf("server scope in a DM = %q", got)
	}

	ollama.Down()
	if got := use(model, "c1", "set", map[string]any{"name": "qwen3:8b"}); !strings.Contains(got, "モデルサーバーに接続できない") {
		t.Errorf("Ollama down = %q", got)
	}
	if got := model.Complete(t.Context(), Request{Focused: "name"}); got != nil {
		t.Errorf("autocomplete with Ollama down = %+v, want none", got)
	}
	for _, sub := range []string{"set", "reset"} {
		if persona.Required(sub) != ManageChannels || model.Required(sub) != ManageChannels {
			t.Errorf("%s does not need Manage Channels", sub)
		}
	}
	if persona.Required("show") != 0 || persona.Visible != ManageChannels {
		t.Error("show needs nothing; the command is shown to Manage Channels by default")
	}
}

// With two model servers, /model set offers the chat models of both, each
// with the servers that have it, and never a model that only embeds.
func TestModelChoicesAcrossServers(t *testing.T) {
	gpu1, gpu2 := ollamatest.New(t), ollamatest.New(t)
	gpu1.AddModel("qwen3:8b", "completion", "tools")
	gpu1.AddModel("bge-m3", "embedding")
	gpu2.AddModel("qwen3:8b", "completion", "tools")
	gpu2.AddModel("gemma3:12b", "completion", "vision")
	servers := llm.NewPool(llm.PoolOptions{Servers: []llm.PoolServer{
		{Name: "gpu1", Backend: gpu1.Client()}, {Name: "gpu2", Backend: gpu2.Client()},
	}})
	c := &Channels{DB: dbtest.New(t), Models: servers, Parents: threads{}, DefaultModel: func() string { return "qwen3:8b" }, Log: quiet}
	got := c.Model().Complete(t.Context(), Request{Command: "model", Subcommand: "set", Focused: "name", Options: map[string]any{"name": ""}})
	want := []Choice{{Name: "gemma3:12b (gpu2)", Value: "gemma3:12b"}, {Name: "qwen3:8b (gpu1, gpu2)", Value: "qwen3:8b"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("choices = %+v, want %+v", got, want)
	}
	req := Request{Command: "model", Subcommand: "set", UserID: "u1", GuildID: "g1", ChannelID: "c1", Perms: ManageChannels, Options: map[string]any{"name": "gemma3:12b"}}
	if text := c.Model().Run(t.Context(), req).Text; !strings.Contains(text, "gemma3:12b にしました") {
		t.Errorf("set a model only gpu2 has = %q", text)
	}
}
