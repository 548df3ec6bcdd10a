package llm

import (
	"context"
	"slices"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Capabilities is what a model supports, from /api/show.
type Capabilities struct {
	Tools    bool // native tool calling
	Thinking bool // a separate thinking stream (think option)
	Vision   bool // images in messages
	// All lists every capability Ollama reported ("completion", "insert", …).
	All []string
}

func capabilitiesFrom(resp *api.ShowResponse) Capabilities {
	names := make([]string, len(resp.Capabilities))
	for i, c := range resp.Capabilities {
		names[i] = string(c)
	}
	return CapabilitiesOf(names...)
}

// CapabilitiesOf is what a model with the capabilities named (Ollama's
// names: "completion", "tools", "vision", …) supports.
func CapabilitiesOf(names ...string) Capabilities {
	var c Capabilities
	for _, name := range names {
		c.All = append(c.All, name)
		switch model.Capability(name) {
		case model.CapabilityTools:
			c.Tools = true
		case model.CapabilityThinking:
			c.Thinking = true
		case model.CapabilityVision:
			c.Vision = true
		}
	}
	return c
}

// Capabilities returns what model supports. Successful answers are cached
// for the life of the Pipeline; failures (not found, Ollama down) are not,
// so a model pulled later is picked up on the next turn.
func (p *Pipeline) Capabilities(ctx context.Context, model string) (Capabilities, error) {
	p.capMu.Lock()
	c, ok := p.caps[model]
	p.capMu.Unlock()
	if ok {
		return c.clone(), nil
	}
	callCtx, cancel := context.WithTimeout(ctx, p.callTimeout)
	defer cancel()
	resp, err := p.client.Show(callCtx, &api.ShowRequest{Model: model})
	if err != nil {
		return Capabilities{}, InterpretError(ctx, "show", model, err)
	}
	c = capabilitiesFrom(resp)
	p.capMu.Lock()
	p.caps[model] = c
	p.capMu.Unlock()
	return c.clone(), nil
}

func (c Capabilities) clone() Capabilities {
	c.All = slices.Clone(c.All)
	return c
}

// forget drops a cached answer, e.g. after chat says the model is gone.
func (p *Pipeline) forget(model string) {
	p.capMu.Lock()
	delete(p.caps, model)
	p.capMu.Unlock()
}
