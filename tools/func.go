package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validName is what Ollama and the OpenAI-style APIs accept as a function name.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// funcTool is a Tool made by New from a typed function.
type funcTool[A any] struct {
	meta   Meta
	args   *argSchema
	schema *jsonschema.Schema
	fn     func(context.Context, A) (string, error)
}

// New makes a Tool named name from fn. The JSON schema the model sees is
// derived from the struct type A once, here (see the package doc for the
// field tags). Execute validates the raw arguments against it, applies
// defaults, decodes them into an A and calls fn.
func New[A any](name, description string, fn func(ctx context.Context, args A) (string, error)) (Tool, error) {
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("new tool %q: name must match %s", name, validName)
	}
	if fn == nil {
		return nil, fmt.Errorf("new tool %s: nil function", name)
	}
	as, err := reflectArgs(reflect.TypeFor[A]())
	if err != nil {
		return nil, fmt.Errorf("new tool %s: %w", name, err)
	}
	sch, err := compileSchema(as.validation)
	if err != nil {
		return nil, fmt.Errorf("new tool %s: compile schema: %w", name, err)
	}
	return &funcTool[A]{
		meta:   Meta{Name: name, Description: description, Parameters: as.params},
		args:   as,
		schema: sch,
		fn:     fn,
	}, nil
}

// MustNew is New for tools registered at start-up, where a bad argument
// struct is a programming error: it panics instead of returning an error.
func MustNew[A any](name, description string, fn func(ctx context.Context, args A) (string, error)) Tool {
	t, err := New(name, description, fn)
	if err != nil {
		panic(err)
	}
	return t
}

// Meta returns a copy of the tool's metadata; changing it changes nothing.
func (t *funcTool[A]) Meta() Meta {
	m := t.meta
	m.Parameters = cloneParams(m.Parameters)
	return m
}

// Execute validates args, decodes them and runs the function. A bad argument
// is an *ArgumentError (message `invalid argument "field": …`).
func (t *funcTool[A]) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	data, err := t.args.prepare(t.schema, args)
	if err != nil {
		return "", err
	}
	var a A
	if t.args.defaults != nil {
		if err := json.Unmarshal(t.args.defaults, &a); err != nil {
			return "", fmt.Errorf("tool %s: apply defaults: %w", t.meta.Name, err)
		}
	}
	if err := json.Unmarshal(data, &a); err != nil {
		var ae *ArgumentError
		if errors.As(err, &ae) {
			return "", ae
		}
		return "", decodeError(err)
	}
	return t.fn(ctx, a)
}

// hiddenArgs names the arguments the model must not set; Registry.Call
// drops them from the model's arguments before the Before hooks run.
func (t *funcTool[A]) hiddenArgs() []string { return slices.Clone(t.args.hidden) }
