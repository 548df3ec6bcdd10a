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

// Capabilities returns what model supports, as a server of the pool that
// has it says. Successful answers are cached per server and model for the
// life of the Pipeline; failures (not found, every server down) are not,
// so a model pulled later is picked up on the next turn.
func (p *Pipeline) Capabilities(ctx context.Context, model string) (Capabilities, error) {
	return p.pool.capabilities(ctx, model)
}

// EmbeddingOnly reports whether the model only embeds (its capabilities
// name "embedding" and not "completion"): it is not offered for chat.
func (c Capabilities) EmbeddingOnly() bool {
	return slices.Contains(c.All, string(model.CapabilityEmbedding)) && !slices.Contains(c.All, string(model.CapabilityCompletion))
}

func (c Capabilities) clone() Capabilities {
	c.All = slices.Clone(c.All)
	return c
}
