package tools

import (
	"context"
	"encoding/json"

	"github.com/ollama/ollama/api"
)

// Tool is something the model can call. Meta is fixed when the tool is
// registered; Execute may keep state of its own.
type Tool interface {
	Meta() Meta
	Execute(ctx context.Context, args json.RawMessage) (string, error)
}

// Meta describes a tool to the model.
type Meta struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the arguments object, as Ollama takes it.
	Parameters api.ToolFunctionParameters
}
