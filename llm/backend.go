package llm

import (
	"context"

	"github.com/ollama/ollama/api"
)

// Backend is one model server as the pipeline uses it: *Client (Ollama)
// and openaicompat.Client satisfy it.
type Backend interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
	List(ctx context.Context) (*api.ListResponse, error)
	Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error)
}

var (
	_ Backend = (*Client)(nil)
	_ Backend = (*api.Client)(nil)
)
