package llm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

func TestCheckInstalled(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel("qwen3:4b", "completion", "tools")
	srv.AddModel("llama3", "completion")
	ctx := context.Background()
	for _, tc := range []struct {
		model, pull string // pull: the command a missing model names
	}{
		{"qwen3:4b", ""},
		{"llama3", ""},
		{"llama3:latest", ""},
		{"qwen3", "ollama pull qwen3"},
		{"gemma3:27b", "ollama pull gemma3:27b"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			err := llm.CheckInstalled(ctx, srv.Client(), tc.model)
			if tc.pull == "" {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			missing, ok := llm.MissingModel(err)
			if !ok || missing.PullCommand() != tc.pull {
				t.Errorf("err = %v; want a missing model naming %q", err, tc.pull)
			}
		})
	}
	names, err := llm.InstalledModels(ctx, srv.Client())
	if err != nil || len(names) != 2 || names[0] != "llama3:latest" || names[1] != "qwen3:4b" {
		t.Errorf("InstalledModels = %v, %v", names, err)
	}
	srv.Down()
	if err := llm.CheckInstalled(ctx, srv.Client(), "qwen3:4b"); !errors.Is(err, llm.ErrUnavailable) {
		t.Errorf("Ollama down: err = %v; want ErrUnavailable", err)
	}
}
