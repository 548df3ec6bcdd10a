package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// ErrUnknownTool is wrapped by the error Call returns for a name that is not
// registered (models do invent tool names).
var ErrUnknownTool = errors.New("unknown tool")

// Invocation is one tool call as the hooks see it.
type Invocation struct {
	Tool    string          // tool name
	Args    json.RawMessage // arguments; Before hooks may replace them
	Started time.Time       // when Call began
	// Hidden names the tool's hidden arguments (tool:"hidden"): the ones
	// the model cannot see or set and Before hooks may fill.
	Hidden []string
}

// SetArg sets the top-level argument field to value in call.Args. Arguments
// that are not a JSON object are left alone (validation reports them).
func (call *Invocation) SetArg(field string, value any) error {
	obj, ok := argObject(call.Args)
	if !ok {
		return nil
	}
	b, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("set argument %s of %s: %w", field, call.Tool, err)
	}
	obj[field] = b
	if call.Args, err = json.Marshal(obj); err != nil {
		return fmt.Errorf("set argument %s of %s: %w", field, call.Tool, err)
	}
	return nil
}

// BeforeHook runs before a tool executes and may rewrite call.Args. An error
// stops the call and becomes its error.
type BeforeHook func(ctx context.Context, call *Invocation) error

// AfterHook runs after a tool executed (or a Before hook refused the call)
// with the result and error so far, and returns them, possibly rewritten.
type AfterHook func(ctx context.Context, call Invocation, result string, err error) (string, error)

// InjectCaller returns a Before hook that sets the hidden argument field to
// from(caller), where caller is the Caller in the context. Tools without a
// hidden argument of that name are left alone, as are calls whose context has
// no Caller or for which from returns "".
func InjectCaller(field string, from func(Caller) string) BeforeHook {
	return func(ctx context.Context, call *Invocation) error {
		if !slices.Contains(call.Hidden, field) {
			return nil
		}
		c, ok := CallerFrom(ctx)
		if !ok {
			return nil
		}
		v := from(c)
		if v == "" {
			return nil
		}
		return call.SetArg(field, v)
	}
}

// PanicError is the error of a call whose tool panicked. Its message is short
// (it goes back to the model); Stack is for the log.
type PanicError struct {
	Tool  string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("tool %s panicked: %v", e.Tool, e.Value) }

// hiddenArgser is implemented by tools made with New.
type hiddenArgser interface{ hiddenArgs() []string }

type entry struct {
	tool   Tool
	meta   Meta
	hidden []string
}

// hooks are shared between a Registry and its subsets.
type hooks struct {
	mu     sync.RWMutex
	before []BeforeHook
	after  []AfterHook
}

// Registry holds the tools offered to the model and calls them. Register
// everything before the first Call; Call, Definitions and the other readers
// are safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]entry
	names []string // sorted
	hooks *hooks
	now   func() time.Time
	// defsJSON is json.Marshal(Definitions()), made on first use after a
	// change (DefinitionsJSON).
	defsJSON []byte
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]entry{}, hooks: &hooks{}, now: time.Now}
}

// Register adds t. A name that is invalid (it must match
// ^[a-zA-Z0-9_-]{1,64}$) or already registered is an error.
func (r *Registry) Register(t Tool) error {
	if t == nil {
		return errors.New("register tool: nil tool")
	}
	m := t.Meta()
	if !validName.MatchString(m.Name) {
		return fmt.Errorf("register tool %q: name must match %s", m.Name, validName)
	}
	if m.Parameters.Type == "" {
		m.Parameters.Type = "object"
	}
	if m.Parameters.Type != "object" {
		return fmt.Errorf("register tool %s: parameters must be of type object, not %q", m.Name, m.Parameters.Type)
	}
	m.Parameters = cloneParams(m.Parameters)
	e := entry{tool: t, meta: m}
	if h, ok := t.(hiddenArgser); ok {
		e.hidden = h.hiddenArgs()
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[m.Name]; dup {
		return fmt.Errorf("register tool %s: duplicate name", m.Name)
	}
	r.tools[m.Name] = e
	i, _ := slices.BinarySearch(r.names, m.Name)
	r.names = slices.Insert(r.names, i, m.Name)
	r.defsJSON = nil
	return nil
}

// MustRegister registers tools and panics on the first error: for a fixed
// set of tools where a clash is a programming error, as in tests. Wiring
// that may meet a clash (MCP servers' tools) uses Register.
func (r *Registry) MustRegister(tools ...Tool) {
	for _, t := range tools {
		if err := r.Register(t); err != nil {
			panic(err)
		}
	}
}

// Before adds a hook run before every call, after the hooks added earlier.
// Hooks are shared with subsets: adding one to either affects both.
func (r *Registry) Before(h BeforeHook) {
	r.hooks.mu.Lock()
	defer r.hooks.mu.Unlock()
	r.hooks.before = append(r.hooks.before, h)
}

// After adds a hook run after every call, after the hooks added earlier; each
// gets the result and error the previous one returned.
func (r *Registry) After(h AfterHook) {
	r.hooks.mu.Lock()
	defer r.hooks.mu.Unlock()
	r.hooks.after = append(r.hooks.after, h)
}

// Subset returns a registry offering only the named tools and sharing r's
// hooks, e.g. for a handler that offers only the reminder tools. Naming a
// tool that is not registered is an error wrapping ErrUnknownTool. Tools
// registered on either afterwards are not seen by the other.
func (r *Registry) Subset(names ...string) (*Registry, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s := &Registry{tools: make(map[string]entry, len(names)), hooks: r.hooks, now: r.now}
	for _, n := range names {
		e, ok := r.tools[n]
		if !ok {
			return nil, fmt.Errorf("subset: tool %q: %w", n, ErrUnknownTool)
		}
		if _, dup := s.tools[n]; dup {
			continue
		}
		s.tools[n] = e
		s.names = append(s.names, n)
	}
	slices.Sort(s.names)
	return s, nil
}

// Definitions returns the tools as Ollama takes them, sorted by name so that
// the same tools always make the same request. The result is a copy.
func (r *Registry) Definitions() api.Tools {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.definitionsLocked()
}

// definitionsLocked is Definitions; r.mu is held.
func (r *Registry) definitionsLocked() api.Tools {
	defs := make(api.Tools, 0, len(r.names))
	for _, n := range r.names {
		m := r.tools[n].meta
		defs = append(defs, api.Tool{
			Type: "function",
			Function: api.ToolFunction{
				Name:        m.Name,
				Description: m.Description,
				Parameters:  cloneParams(m.Parameters),
			},
		})
	}
	return defs
}

// DefinitionsJSON is the JSON of Definitions, made once per set of tools
// (llm.EncodedTools): the model is offered the same schemas on every call.
// The bytes are shared; callers must not change them.
func (r *Registry) DefinitionsJSON() []byte {
	r.mu.RLock()
	b := r.defsJSON
	r.mu.RUnlock()
	if b != nil {
		return b
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.defsJSON == nil {
		// The schemas are strings, slices and maps: this cannot fail, and
		// if it did, nil has the call encode them itself.
		r.defsJSON, _ = json.Marshal(r.definitionsLocked())
	}
	return r.defsJSON
}

// Names returns the registered tool names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.names)
}

// Call runs the tool name with args: Before hooks, Execute, After hooks. An
// unknown name is an error wrapping ErrUnknownTool. Errors from the tool are
// returned as they are, since they go back to the model as the result; a
// panic in the tool becomes a *PanicError.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	r.mu.RLock()
	e, ok := r.tools[name]
	var names string
	if !ok {
		names = strings.Join(r.names, ", ")
	}
	r.mu.RUnlock()
	if !ok {
		// The names are what the model was offered anyway; listing them
		// helps it correct a misspelling.
		return "", fmt.Errorf("%w %q (available: %s)", ErrUnknownTool, name, names)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("call %s: %w", name, err)
	}

	r.hooks.mu.RLock()
	before, after := r.hooks.before, r.hooks.after
	r.hooks.mu.RUnlock()

	call := Invocation{Tool: name, Args: args, Started: r.now()}
	if len(e.hidden) > 0 {
		call.Hidden = slices.Clone(e.hidden)
		call.Args = dropArgs(args, e.hidden)
	}

	var result string
	var err error
	for _, h := range before {
		if err = h(ctx, &call); err != nil {
			break
		}
	}
	if err == nil {
		result, err = execute(ctx, e.tool, name, call.Args)
	}
	for _, h := range after {
		result, err = h(ctx, call, result, err)
	}
	return result, err
}

func execute(ctx context.Context, t Tool, name string, args json.RawMessage) (result string, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = "", &PanicError{Tool: name, Value: p, Stack: debug.Stack()}
		}
	}()
	return t.Execute(ctx, args)
}

// dropArgs removes fields from a JSON object; anything else is returned as is.
func dropArgs(args json.RawMessage, fields []string) json.RawMessage {
	// Fast path: no field name and no escape (which could spell one).
	if !bytes.ContainsRune(args, '\\') && !slices.ContainsFunc(fields, func(f string) bool {
		return bytes.Contains(args, []byte(f))
	}) {
		return args
	}
	obj, ok := argObject(args)
	if !ok {
		return args
	}
	n := len(obj)
	for _, f := range fields {
		delete(obj, f)
	}
	if len(obj) == n {
		return args
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return args
	}
	return b
}

// argObject decodes args as a JSON object; empty arguments are an empty
// object.
func argObject(args json.RawMessage) (map[string]json.RawMessage, bool) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		return map[string]json.RawMessage{}, true
	}
	var s string
	if args[0] == '"' && json.Unmarshal(args, &s) == nil {
		args = []byte(s) // double-encoded, as Execute accepts it
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return nil, false
	}
	return obj, true
}
