package llm

import (
	"context"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// BackgroundClient is the Ollama client for work outside any turn
// (summaries, tags, embeddings). Its chat calls wait for a slot behind the
// users' turns (Pipeline.Background) and are recorded like the
// pipeline's; its embeddings are many and small, so they are observed
// (Options.Observe) but not handed to the Recorder.
type BackgroundClient struct {
	p *Pipeline
	c chatEmbedder
}

// chatEmbedder is what background work needs of a model server: *Client
// (Ollama) and openaicompat.Client have it.
type chatEmbedder interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
	Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error)
}

// BackgroundClient returns the client for background work through c.
func (p *Pipeline) BackgroundClient(c chatEmbedder) *BackgroundClient {
	return &BackgroundClient{p: p, c: c}
}

// Chat is c.Chat in a background slot, recorded.
func (b *BackgroundClient) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	var started time.Time
	var first time.Duration
	var content strings.Builder
	var metrics api.Metrics
	err := b.p.Background(ctx, func(ctx context.Context) error {
		started = b.p.now()
		return b.c.Chat(ctx, req, func(r api.ChatResponse) error {
			if first == 0 && r.Message.Content != "" {
				first = b.p.now().Sub(started)
			}
			content.WriteString(r.Message.Content)
			if r.Done {
				metrics = r.Metrics
			}
			return fn(r)
		})
	})
	if started.IsZero() {
		return err // never reached Ollama
	}
	latency := b.p.now().Sub(started)
	err = InterpretError(ctx, "chat", req.Model, err)
	b.p.record(ctx, req, nil, content.String(), nil, err, started, latency, first, metrics)
	return err
}

// Embed is c.Embed, with a missing embedding model reported as the
// pipeline reports one: by name, with the command that pulls it.
func (b *BackgroundClient) Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error) {
	resp, err := b.c.Embed(ctx, req)
	if err != nil {
		err = InterpretError(ctx, "embed", req.Model, err)
	}
	call := Call{Model: req.Model, Kind: KindEmbed, Outcome: Outcome(err)}
	if err == nil {
		call.PromptTokens = resp.PromptEvalCount
	}
	b.p.observe(call)
	if err != nil {
		return nil, err
	}
	return resp, nil
}
