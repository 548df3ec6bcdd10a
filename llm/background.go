package llm

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// BackgroundClient reaches the pool's servers for work outside any turn
// (summaries, tags, embeddings). Its chat calls wait for a slot behind the
// users' turns (as Pipeline.Background) and are recorded like the
// pipeline's; its embeddings are many and small, so they take no slot and
// are observed (Options.Observe) but not handed to the Recorder. Both go to
// a server that has the model, and to another when that one fails before
// answering.
type BackgroundClient struct {
	p *Pipeline
}

// BackgroundClient returns the client for background work.
func (p *Pipeline) BackgroundClient() *BackgroundClient {
	return &BackgroundClient{p: p}
}

// Chat is a chat call in a background slot, recorded.
func (b *BackgroundClient) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	var tried []*server
	for {
		s, err := b.p.acquire(ctx, req.Model, true, tried, func(int) error { return nil })
		if err != nil {
			return err // never reached a server
		}
		answered, err := b.chatOn(ctx, s, req, fn)
		s.release()
		if err == nil || answered || ctx.Err() != nil || !errors.Is(err, ErrUnavailable) {
			return err
		}
		b.p.pool.markDown(s.srv, err)
		tried = append(tried, s.srv)
		if !b.p.pool.another(req.Model, tried) {
			return err
		}
	}
}

// chatOn makes the call on s; answered says whether fn was given anything.
func (b *BackgroundClient) chatOn(ctx context.Context, s *slot, req *api.ChatRequest, fn api.ChatResponseFunc) (answered bool, err error) {
	var first time.Duration
	var content strings.Builder
	var metrics api.Metrics
	started := b.p.now()
	callCtx, cancel := context.WithTimeout(ctx, b.p.callTimeout)
	defer cancel()
	err = s.srv.Backend.Chat(callCtx, req, func(r api.ChatResponse) error {
		answered = true
		if first == 0 && r.Message.Content != "" {
			first = b.p.now().Sub(started)
		}
		content.WriteString(r.Message.Content)
		if r.Done {
			metrics = r.Metrics
		}
		return fn(r)
	})
	latency := b.p.now().Sub(started)
	err = InterpretError(ctx, "chat", req.Model, err)
	b.p.record(ctx, req, nil, content.String(), nil, err, started, latency, first, metrics)
	return answered, err
}

// Embed embeds on a server that has the model, with a missing embedding
// model reported as the pipeline reports one: by name, with the command
// that pulls it.
func (b *BackgroundClient) Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error) {
	var tried []*server
	for {
		b.p.pool.mu.Lock()
		cands := b.p.pool.candidatesLocked(req.Model, tried)
		b.p.pool.mu.Unlock()
		s := cands[0]
		resp, err := s.Backend.Embed(ctx, req)
		if err != nil {
			err = InterpretError(ctx, "embed", req.Model, err)
		}
		if err != nil && errors.Is(err, ErrUnavailable) && ctx.Err() == nil {
			b.p.pool.markDown(s, err)
			tried = append(tried, s)
			if b.p.pool.another(req.Model, tried) {
				continue
			}
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
}
