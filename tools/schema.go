package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	invopop "github.com/invopop/jsonschema"
	"github.com/ollama/ollama/api"
)

// argSchema is everything New derives from an argument struct once.
type argSchema struct {
	validation []byte                     // full JSON schema, hidden fields included
	params     api.ToolFunctionParameters // what the model sees
	hidden     []string                   // JSON names of tool:"hidden" fields
	defaults   []byte                     // JSON object of default= values; nil if none
	// coerce maps a top-level argument to the JSON type it is coerced to
	// ("integer", "number", "boolean", "string") when the model sends the
	// wrong but unambiguous one.
	coerce   map[string]string
	required map[string]bool
	visible  []string // argument names the model sees, in field order
}

// reflectArgs derives the schemas for the struct type t.
func reflectArgs(t reflect.Type) (*argSchema, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("arguments must be a struct, not %s", t)
	}
	r := &invopop.Reflector{
		Anonymous:      true,
		DoNotReference: true,
		ExpandedStruct: true,
		// AllowAdditionalProperties false: an unknown argument is an error the
		// model can act on rather than something silently ignored.
	}
	var s *invopop.Schema
	if err := func() (err error) {
		defer func() {
			if p := recover(); p != nil { // invopop panics on chan, func, …
				err = fmt.Errorf("%v", p)
			}
		}()
		s = r.ReflectFromType(t)
		return nil
	}(); err != nil {
		return nil, fmt.Errorf("reflect %s: %w", t, err)
	}

	hidden, err := hiddenFields(t)
	if err != nil {
		return nil, err
	}

	as := &argSchema{
		hidden:   hidden,
		coerce:   map[string]string{},
		required: map[string]bool{},
	}
	for _, name := range s.Required {
		as.required[name] = true
	}

	props := api.NewToolPropertiesMap()
	defaults := map[string]any{}
	if s.Properties != nil {
		for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
			name, ps := pair.Key, pair.Value
			switch ps.Type {
			case "integer", "number", "boolean", "string":
				as.coerce[name] = ps.Type
			}
			if ps.Default != nil {
				defaults[name] = ps.Default
			}
			if slices.Contains(hidden, name) {
				continue
			}
			props.Set(name, toProperty(ps))
			as.visible = append(as.visible, name)
		}
	}
	var required []string
	for _, name := range s.Required {
		if !slices.Contains(hidden, name) {
			required = append(required, name)
		}
	}
	as.params = api.ToolFunctionParameters{Type: "object", Required: required, Properties: props}

	if len(defaults) > 0 {
		if as.defaults, err = json.Marshal(defaults); err != nil {
			return nil, fmt.Errorf("defaults of %s: %w", t, err)
		}
		// A default that does not fit its field would fail every call
		// that omits it; refuse it now instead.
		if err := json.Unmarshal(as.defaults, reflect.New(t).Interface()); err != nil {
			return nil, fmt.Errorf("defaults of %s: %w", t, err)
		}
	}
	if as.validation, err = json.Marshal(s); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", t, err)
	}
	return as, nil
}

// hiddenFields returns the JSON names of t's fields tagged tool:"hidden".
func hiddenFields(t reflect.Type) ([]string, error) {
	var names []string
	for _, f := range reflect.VisibleFields(t) {
		tag, ok := f.Tag.Lookup("tool")
		if !ok {
			continue
		}
		if tag != "hidden" {
			return nil, fmt.Errorf("field %s.%s: unknown tool tag %q", t, f.Name, tag)
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names, nil
}

// toProperty converts one invopop property schema to Ollama's type. What
// Ollama's type cannot hold (format, minimum, maximum, default) goes into the description.
func toProperty(s *invopop.Schema) api.ToolProperty {
	var tp api.ToolProperty
	if s.Type != "" {
		tp.Type = api.PropertyType{s.Type}
	}
	alts := s.AnyOf
	if len(alts) == 0 {
		alts = s.OneOf
	}
	if len(alts) > 0 {
		// jsonschema:"nullable" gives oneOf [T, null]; a plain list of
		// types is what small models read best.
		simple := true
		for _, a := range alts {
			if a.Type == "" || a.Properties != nil || a.Items != nil || len(a.Enum) > 0 {
				simple = false
			}
		}
		if simple {
			for _, a := range alts {
				if !slices.Contains(tp.Type, a.Type) {
					tp.Type = append(tp.Type, a.Type)
				}
			}
		} else {
			for _, a := range alts {
				tp.AnyOf = append(tp.AnyOf, toProperty(a))
			}
		}
		if s.Description == "" && len(alts) > 0 {
			a := alts[0]
			s = &invopop.Schema{Description: a.Description, Default: a.Default, Format: a.Format, Minimum: a.Minimum, Maximum: a.Maximum}
		}
	}
	if len(s.Enum) > 0 {
		tp.Enum = slices.Clone(s.Enum)
	}
	if s.Items != nil {
		tp.Items = toProperty(s.Items)
	}
	if s.Properties != nil && s.Properties.Len() > 0 {
		tp.Properties = api.NewToolPropertiesMap()
		for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
			tp.Properties.Set(pair.Key, toProperty(pair.Value))
		}
	}
	tp.Description = describe(s)
	return tp
}

func describe(s *invopop.Schema) string {
	var notes []string
	if s.Format != "" {
		notes = append(notes, "format: "+s.Format)
	}
	if s.Minimum != "" {
		notes = append(notes, "minimum: "+string(s.Minimum))
	}
	if s.Maximum != "" {
		notes = append(notes, "maximum: "+string(s.Maximum))
	}
	if s.Default != nil {
		b, err := json.Marshal(s.Default)
		if err == nil {
			notes = append(notes, "default: "+string(b))
		}
	}
	if len(notes) == 0 {
		return s.Description
	}
	note := "(" + strings.Join(notes, ", ") + ")"
	if s.Description == "" {
		return note
	}
	return s.Description + " " + note
}

// cloneParams deep-copies p so that a caller mutating what Meta or
// Definitions returned cannot change the registered tool.
func cloneParams(p api.ToolFunctionParameters) api.ToolFunctionParameters {
	p.Required = slices.Clone(p.Required)
	p.Properties = cloneProps(p.Properties)
	p.Items = cloneAny(p.Items)
	p.Defs = cloneAny(p.Defs)
	return p
}

func cloneProps(m *api.ToolPropertiesMap) *api.ToolPropertiesMap {
	if m == nil {
		return nil
	}
	c := api.NewToolPropertiesMap()
	for k, v := range m.All() {
		c.Set(k, cloneProp(v))
	}
	return c
}

func cloneProp(p api.ToolProperty) api.ToolProperty {
	p.Type = slices.Clone(p.Type)
	if p.Enum != nil {
		enum := make([]any, len(p.Enum))
		for i, v := range p.Enum {
			enum[i] = cloneAny(v)
		}
		p.Enum = enum
	}
	if p.AnyOf != nil {
		anyOf := make([]api.ToolProperty, len(p.AnyOf))
		for i, v := range p.AnyOf {
			anyOf[i] = cloneProp(v)
		}
		p.AnyOf = anyOf
	}
	p.Items = cloneAny(p.Items)
	p.Properties = cloneProps(p.Properties)
	return p
}

// cloneAny copies the shapes schema fields hold: our own ToolProperty values
// and the maps and slices of decoded JSON (tools from MCP servers).
func cloneAny(v any) any {
	switch x := v.(type) {
	case api.ToolProperty:
		return cloneProp(x)
	case *api.ToolProperty:
		if x == nil {
			return x
		}
		c := cloneProp(*x)
		return &c
	case map[string]any:
		c := maps.Clone(x)
		for k, e := range c {
			c[k] = cloneAny(e)
		}
		return c
	case []any:
		c := slices.Clone(x)
		for i, e := range c {
			c[i] = cloneAny(e)
		}
		return c
	case json.RawMessage:
		return bytes.Clone(x)
	default:
		return v
	}
}
