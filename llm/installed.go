package llm

import (
	"context"
	"sort"
	"strings"

	"github.com/ollama/ollama/api"
)

// ModelLister lists the models Ollama has (/api/tags); *api.Client
// satisfies it.
type ModelLister interface {
	List(ctx context.Context) (*api.ListResponse, error)
}

// InstalledModels returns the names of the models Ollama has, sorted. An
// Ollama that cannot be asked gives an error matching ErrUnavailable.
func InstalledModels(ctx context.Context, l ModelLister) ([]string, error) {
	resp, err := l.List(ctx)
	if err != nil {
		return nil, InterpretError(ctx, "list", "models", err)
	}
	names := make([]string, 0, len(resp.Models))
	for _, m := range resp.Models {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return names, nil
}

// CheckInstalled returns nil when Ollama has model, a *ModelNotFoundError
// (with its `ollama pull` command) when it does not, and an error matching
// ErrUnavailable when Ollama cannot be asked. A name without a tag means
// ":latest", as in Ollama.
func CheckInstalled(ctx context.Context, l ModelLister, model string) error {
	names, err := InstalledModels(ctx, l)
	if err != nil {
		return err
	}
	want := withTag(model)
	for _, n := range names {
		if withTag(n) == want {
			return nil
		}
	}
	return &ModelNotFoundError{Op: "list", Model: model}
}

// withTag adds ":latest" to a model name that has no tag ("llama3",
// "hf.co/org/repo").
func withTag(name string) string {
	if i := strings.LastIndex(name, "/"); !strings.Contains(name[i+1:], ":") {
		return name + ":latest"
	}
	return name
}
