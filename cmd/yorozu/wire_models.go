package main

import (
	"context"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/openaicompat"
)

// modelServer is what the parts ask of the model server: chat and
// capabilities (the pipeline), the model list (pickers, /model set),
// embeddings (the knowledge base), whether it answers (health).
type modelServer interface {
	llm.ChatClient
	llm.ModelLister
	Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error)
	Version(ctx context.Context) (string, error)
}

// newModelServer is Ollama, or the OpenAI-compatible server when only
// OPENAI_BASE_URL is set.
func newModelServer(cfg *config.Config) (modelServer, error) {
	if cfg.OpenAIOnly() {
		return openaicompat.FromConfig(cfg.OpenAI)
	}
	return llm.NewClient(cfg.OllamaHost, nil), nil
}

// openAIOnly is OPENAI_BASE_URL when the bot runs on it alone, else "".
func openAIOnly(cfg *config.Config) string {
	if cfg.OpenAIOnly() {
		return cfg.OpenAI.BaseURL
	}
	return ""
}
