package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ollama/ollama/api"
)

var (
	// ErrModelNotFound means Ollama does not have the model. Errors that
	// match it are *ModelNotFoundError, which carries the model's name.
	ErrModelNotFound = errors.New("model not found")
	// ErrUnavailable means Ollama could not be reached or failed: connection
	// refused, DNS, a 5xx answer, a call timeout, a stream broken mid-way.
	ErrUnavailable = errors.New("ollama unavailable")
)

// ModelNotFoundError says Ollama does not have Model. It matches
// ErrModelNotFound with errors.Is; errors.As gives the model, so no one
// has to find it in the message text.
type ModelNotFoundError struct {
	Op    string // the operation that found out: "chat", "show", "embed"
	Model string // exactly as requested, tag or not ("llama3", "qwen3:4b")
}

// Error names the model and the command that fixes it.
func (e *ModelNotFoundError) Error() string {
	return fmt.Sprintf("%s %s: model %q not found (run: %s)", e.Op, e.Model, e.Model, e.PullCommand())
}

// Is makes errors.Is(err, ErrModelNotFound) hold.
func (e *ModelNotFoundError) Is(target error) bool { return target == ErrModelNotFound }

// PullCommand is the command that installs the model on the Ollama server.
func (e *ModelNotFoundError) PullCommand() string { return "ollama pull " + e.Model }

// MissingModel returns the model err says is not pulled, if it says so.
func MissingModel(err error) (*ModelNotFoundError, bool) {
	var m *ModelNotFoundError
	if errors.As(err, &m) {
		return m, true
	}
	return nil, false
}

// InterpretError turns what api.Client reports for a call about model into
// the package's errors: a 404 becomes *ModelNotFoundError, transport
// failures and 5xx wrap ErrUnavailable. op names the operation for the
// message ("chat", "show", "embed"). ctx is the caller's context: when it
// is done, its error wins, since nothing is wrong with Ollama. Callers of
// api.Client outside the pipeline (embeddings, background chats) use it so
// that every missing model is reported the same way.
func InterpretError(ctx context.Context, op, model string, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s %s: %w", op, model, ctxErr)
	}
	if _, ok := MissingModel(err); ok {
		return err
	}
	var status api.StatusError
	if errors.As(err, &status) {
		switch {
		case status.StatusCode == http.StatusNotFound:
			return &ModelNotFoundError{Op: op, Model: model}
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
