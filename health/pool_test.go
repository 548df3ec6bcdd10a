package health

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// With several model servers each one is a finding: one down while the
// other answers is a degraded part (turns go to the other), both down a
// failure that leaves the models unchecked.
func TestPoolServersAreCheckedOneByOne(t *testing.T) {
	gpu1, gpu2 := ollamatest.New(t), ollamatest.New(t)
	for _, g := range []*ollamatest.Server{gpu1, gpu2} {
		g.AddModel("qwen3:4b", "completion", "tools")
	}
	pool := llm.NewPool(llm.PoolOptions{Servers: []llm.PoolServer{
		{Name: "gpu1", Kind: "ollama", Backend: gpu1.Client()}, {Name: "gpu2", Kind: "ollama", Backend: gpu2.Client()},
	}})
	c := ollamaChecker{capabilities: llm.New(llm.Options{Pool: pool}).Capabilities, probe: pool.Probe}
	models := []modelUse{{name: "qwen3:4b", vars: []string{"DEFAULT_MODEL"}, chat: true}}
	levels := func() map[string]level {
		out := map[string]level{}
		for _, f := range c.check(t.Context(), models) {
			out[f.label] = f.level
		}
		return out
	}

	if got := levels(); got["model server gpu1"] != levelOK || got["model server gpu2"] != levelOK || got["model qwen3:4b (DEFAULT_MODEL)"] != levelOK {
		t.Errorf("both up: %v", got)
	}
	gpu2.Down()
	fs := c.check(t.Context(), models)
	if err := groupErr(only(fs, "ollama")); err == nil || !strings.Contains(err.Error(), "model server gpu2 is unreachable (the others answer)") {
		t.Errorf("gpu2 down: /readyz ollama = %v", err)
	} else if !isDegraded(err) {
		t.Errorf("gpu2 down fails /readyz (%v); it should be degraded", err)
	}
	if got := levels(); got["model qwen3:4b (DEFAULT_MODEL)"] != levelOK {
		t.Errorf("gpu2 down: the model on gpu1 is %v", got)
	}
	gpu1.Down()
	if got := levels(); got["model server gpu1"] != levelFail || got["model server gpu2"] != levelFail || got["models"] != levelFail {
		t.Errorf("both down: %v", got)
	}
}

// While the slots cannot be leased, /readyz's model_slots is degraded.
func TestPoolCheckSaysSlotsAreNotShared(t *testing.T) {
	gpu := ollamatest.New(t)
	gpu.AddModel("qwen3:4b", "completion")
	pool := llm.NewPool(llm.PoolOptions{Servers: []llm.PoolServer{{Name: "gpu", Backend: gpu.Client()}}, Leases: brokenLeases{}})
	check := PoolCheck(pool)
	if err := check.Fn(t.Context()); err != nil {
		t.Errorf("before any turn: %v", err)
	}
	if _, err := llm.New(llm.Options{Pool: pool}).Run(t.Context(), llm.Request{Model: "qwen3:4b"}, nil); err != nil {
		t.Fatalf("a turn without the database: %v", err)
	}
	if err := check.Fn(t.Context()); err == nil || !isDegraded(err) || !strings.Contains(err.Error(), "database is gone") {
		t.Errorf("with leases failing: %v, want degraded naming the cause", err)
	}
}

type brokenLeases struct{}

func (brokenLeases) Acquire(context.Context, string, int) (int, bool, error) {
	return 0, false, errors.New("database is gone")
}
func (brokenLeases) Release(context.Context, string, int) error {
	return errors.New("database is gone")
}
func (brokenLeases) Renew(context.Context) error { return errors.New("database is gone") }

func only(fs []finding, group string) []finding {
	var out []finding
	for _, f := range fs {
		if f.group == group {
			out = append(out, f)
		}
	}
	return out
}

// isDegraded reports whether /readyz shows err as a degraded part
// (web.Degraded) rather than a failure.
func isDegraded(err error) bool { return fmt.Sprintf("%T", err) == "web.degraded" }
