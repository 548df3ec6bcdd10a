package web

import (
	"net/http"
	"slices"
	"testing"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// With two model servers the pickers offer every server's chat models,
// naming the servers that have each and leaving out models that only
// embed; the servers' block lists each server, its models and its slots,
// and one that is down says so.
func TestModelServersAPI(t *testing.T) {
	gpu1, gpu2 := ollamatest.New(t), ollamatest.New(t)
	gpu1.AddModel("qwen3:4b", "completion", "tools")
	gpu1.AddModel("bge-m3", "embedding")
	gpu2.AddModel("qwen3:4b", "completion", "tools")
	gpu2.AddModel("gemma3:12b", "completion", "vision")
	pool := llm.NewPool(llm.PoolOptions{Servers: []llm.PoolServer{
		{Name: "gpu1", Kind: "ollama", Backend: gpu1.Client(), Slots: 2},
		{Name: "gpu2", Kind: "ollama", Backend: gpu2.Client()},
	}})
	a := newAPI(t, func(o *Options) { o.Deps.Models = pool })

	var m modelsResponse
	if code := a.c.call("GET", "/api/models", nil, &m); code != http.StatusOK {
		t.Fatalf("GET /api/models = %d", code)
	}
	if want := []string{"gemma3:12b", "qwen3:4b"}; !slices.Equal(m.Installed, want) {
		t.Errorf("offered %v, want %v (no embedding-only model)", m.Installed, want)
	}
	if m.Labels["qwen3:4b"] != "qwen3:4b (gpu1, gpu2)" || m.Labels["gemma3:12b"] != "gemma3:12b (gpu2)" {
		t.Errorf("labels = %v", m.Labels)
	}

	gpu2.Down()
	pool.Refresh(t.Context())
	var st struct {
		Servers []modelServer `json:"servers"`
	}
	if code := a.c.call("GET", "/api/model-servers", nil, &st); code != http.StatusOK || len(st.Servers) != 2 {
		t.Fatalf("GET /api/model-servers = %d %+v", code, st)
	}
	g1, g2 := st.Servers[0], st.Servers[1]
	if g1.Name != "gpu1" || !g1.Up || g1.Slots != 2 || g1.InUse != 0 || !slices.Equal(g1.Models, []string{"bge-m3:latest", "qwen3:4b"}) {
		t.Errorf("gpu1 = %+v", g1)
	}
	if g2.Name != "gpu2" || g2.Up || g2.Error == "" {
		t.Errorf("gpu2 (down) = %+v", g2)
	}
	if a.c.call("GET", "/api/models", nil, &m); !slices.Equal(m.Installed, []string{"qwen3:4b"}) {
		t.Errorf("with gpu2 down, offered %v", m.Installed)
	}
}
