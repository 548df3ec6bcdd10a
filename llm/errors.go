package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

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
	// Server is the OpenAI-compatible server that lacks the model (its
	// base URL, secrets masked); empty for Ollama, where PullCommand
	// installs it. Such servers have no pull: their operator loads the
	// model, or a name from their /v1/models is chosen.
	Server string
}

// Error names the model and what fixes it.
func (e *ModelNotFoundError) Error() string {
	if e.Server != "" {
		return fmt.Sprintf("%s %s: model %q not found on %s (load it there, or choose a model its /v1/models lists)", e.Op, e.Model, e.Model, e.Server)
	}
	return fmt.Sprintf("%s %s: model %q not found (run: %s)", e.Op, e.Model, e.Model, e.PullCommand())
}

// Is makes errors.Is(err, ErrModelNotFound) hold.
func (e *ModelNotFoundError) Is(target error) bool { return target == ErrModelNotFound }

// PullCommand is the command that installs the model on the Ollama server;
// empty for an OpenAI-compatible server (Server set), which has none.
func (e *ModelNotFoundError) PullCommand() string {
	if e.Server != "" {
		return ""
	}
	return "ollama pull " + e.Model
}

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
	if errors.As(err, &auth) || isServerVerdict(err) {
		return fmt.Errorf("%s %s: %w", op, model, err)
	}
	// Everything else comes from the transport or the stream itself:
	// refused or reset connections, DNS, the per-call deadline, an
	// {"error": …} line in the middle of a stream.
	return fmt.Errorf("%s %s: %w: %w", op, model, ErrUnavailable, err)
}

// ErrKeyRefused means the model server refused the API key (401, 403).
// Errors that match it are *KeyRefusedError, which names the variable.
var ErrKeyRefused = errors.New("model server refused the api key")

// KeyRefusedError says a model server answered 401 or 403: the key in
// KeyVar is missing, wrong or lacks access. It matches ErrKeyRefused.
type KeyRefusedError struct {
	Server string // base URL, secrets masked
	KeyVar string // the environment variable holding the key (OPENAI_API_KEY)
	Status int
	Detail string // the server's own message
}

// Error names the server, the status and the variable to check.
func (e *KeyRefusedError) Error() string {
	return fmt.Sprintf("%s refused the api key (%d %s): check %s", e.Server, e.Status, e.Detail, e.KeyVar)
}

// Is makes errors.Is(err, ErrKeyRefused) hold.
func (e *KeyRefusedError) Is(target error) bool { return target == ErrKeyRefused }

// ErrBusy means the model server is rate limiting (429) for longer than
// a turn should wait. Errors that match it are *BusyError.
var ErrBusy = errors.New("model server busy")

// BusyError says a model server answered 429 and asked to come back after
// RetryAfter (0 when it did not say).
type BusyError struct {
	Server     string
	RetryAfter time.Duration
	Detail     string
}

// Error names the server and the wait.
func (e *BusyError) Error() string {
	if e.RetryAfter > 0 {
		return fmt.Sprintf("%s is busy (429 %s): retry after %s", e.Server, e.Detail, e.RetryAfter)
	}
	return fmt.Sprintf("%s is busy (429 %s)", e.Server, e.Detail)
}

// Is makes errors.Is(err, ErrBusy) hold.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// BadAnswerError says a model server answered with something that is not
// its API: an HTML page (a proxy, a login page, a wrong base URL) or JSON
// of an unexpected shape. It also matches ErrUnavailable: the server
// cannot serve the turn.
type BadAnswerError struct {
	Server string // base URL, secrets masked
	What   string // what came, e.g. "an HTML page (200 OK)"
}

// Error names the server and what it sent.
func (e *BadAnswerError) Error() string {
	return fmt.Sprintf("%s answered %s, not the OpenAI-compatible API (is the base URL right? it usually ends in /v1)", e.Server, e.What)
}

// Is makes errors.Is(err, ErrUnavailable) hold.
func (e *BadAnswerError) Is(target error) bool { return target == ErrUnavailable }

// ImagesRefusedError says a model refused a request with images: it is
// listed (or configured) but does not see.
type ImagesRefusedError struct {
	Model  string
	Detail string
}

// Error names the model.
func (e *ImagesRefusedError) Error() string {
	return fmt.Sprintf("model %s refused the images (%s)", e.Model, e.Detail)
}

// isServerVerdict reports whether err is an answer of a reachable server
// that says what is wrong (a refused key, busy, images refused, not its
// API), which InterpretError passes on as it is.
func isServerVerdict(err error) bool {
	var (
		key    *KeyRefusedError
		busy   *BusyError
		images *ImagesRefusedError
		bad    *BadAnswerError
	)
	return errors.As(err, &key) || errors.As(err, &busy) || errors.As(err, &images) || errors.As(err, &bad)
}
