package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ollama/ollama/api"
)

var (
	// ErrModelNotFound means Ollama does not have the model; the error's
	// message names it (the fix is `ollama pull <model>`).
	ErrModelNotFound = errors.New("model not found")
	// ErrUnavailable means Ollama could not be reached or failed: connection
	// refused, DNS, a 5xx answer, a call timeout, a stream broken mid-way.
	ErrUnavailable = errors.New("ollama unavailable")
)

// interpretError turns what api.Client reports into the package sentinels.
// op names the operation for the message ("chat", "show"). ctx is the
// caller's context: when it is done, its error wins, since nothing is wrong
// with Ollama.
func interpretError(ctx context.Context, op, model string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s %s: %w", op, model, ctxErr)
	}
	var status api.StatusError
	if errors.As(err, &status) {
		switch {
		case status.StatusCode == http.StatusNotFound:
			return fmt.Errorf("%s %s: %w", op, model, ErrModelNotFound)
		case status.StatusCode >= 500:
			return fmt.Errorf("%s %s: %w: %w", op, model, ErrUnavailable, err)
		default:
			return fmt.Errorf("%s %s: %w", op, model, err)
		}
	}
	var auth api.AuthorizationError
	if errors.As(err, &auth) {
		return fmt.Errorf("%s %s: %w", op, model, err)
	}
	// Everything else comes from the transport or the stream itself:
	// refused or reset connections, DNS, the per-call deadline, an
	// {"error": …} line in the middle of a stream.
	return fmt.Errorf("%s %s: %w: %w", op, model, ErrUnavailable, err)
}
