package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ErrInvalidArgument is what every *ArgumentError matches with errors.Is.
var ErrInvalidArgument = errors.New("invalid argument")

// ArgumentError says what is wrong with one argument of a call. Its message
// is meant for the model: `invalid argument "max_results": expected integer,
// got string`.
type ArgumentError struct {
	Field   string // argument name, dotted for nested fields; empty when the whole object is wrong
	Problem string
}

func (e *ArgumentError) Error() string {
	if e.Field == "" {
		return "invalid argument: " + e.Problem
	}
	return fmt.Sprintf("invalid argument %q: %s", e.Field, e.Problem)
}

// Unwrap makes errors.Is(err, ErrInvalidArgument) hold.
func (e *ArgumentError) Unwrap() error { return ErrInvalidArgument }

// argumentErrors is several problems in one call, reported together so the
// model can fix them in one go.
type argumentErrors []*ArgumentError

func (es argumentErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

func (es argumentErrors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

func compileSchema(doc []byte) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("args.json", v); err != nil {
		return nil, err
	}
	return c.Compile("args.json")
}

// prepare turns raw model arguments into JSON ready to decode into the
// argument struct: parsed, forgiven (see the package doc), validated.
func (as *argSchema) prepare(sch *jsonschema.Schema, raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &ArgumentError{Problem: "arguments are not valid JSON: " + err.Error()}
	}
	if s, ok := v.(string); ok { // arguments double-encoded as a JSON string
		if inner, err := jsonschema.UnmarshalJSON(strings.NewReader(s)); err == nil {
			if _, ok := inner.(map[string]any); ok {
				v, raw = inner, []byte(s)
			}
		}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &ArgumentError{Problem: "arguments must be a JSON object, got " + jsonType(v)}
	}
	if as.forgive(obj) {
		if raw, err = json.Marshal(obj); err != nil {
			return nil, &ArgumentError{Problem: err.Error()}
		}
	}
	if err := sch.Validate(obj); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, as.argumentError(ve)
		}
		return nil, &ArgumentError{Problem: err.Error()}
	}
	return raw, nil
}

// forgive fixes the unambiguous mistakes models make in top-level arguments,
// in place, and reports whether it changed anything.
func (as *argSchema) forgive(obj map[string]any) bool {
	changed := false
	for name, v := range obj {
		if v == nil && !as.required[name] {
			delete(obj, name)
			changed = true
			continue
		}
		want, ok := as.coerce[name]
		if !ok {
			continue
		}
		if nv, ok := coerce(v, want); ok {
			obj[name] = nv
			changed = true
		}
	}
	return changed
}

// coerce returns v as the JSON type want, when that is unambiguous and
// differs from v.
func coerce(v any, want string) (any, bool) {
	switch want {
	case "integer":
		var text string
		switch x := v.(type) {
		case string:
			text = strings.TrimSpace(x)
		case json.Number:
			text = string(x)
		default:
			return nil, false
		}
		if _, err := strconv.ParseInt(text, 10, 64); err == nil {
			if _, isNum := v.(json.Number); isNum {
				return nil, false
			}
			return json.Number(text), true
		}
		// 5.0 or "5e0": integral, but encoding/json will not put it in an int.
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, false
		}
		return json.Number(strconv.FormatInt(int64(f), 10)), true
	case "number":
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		s = strings.TrimSpace(s)
		if f, err := strconv.ParseFloat(s, 64); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, false
		}
		return json.Number(s), true
	case "boolean":
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	case "string":
		if n, ok := v.(json.Number); ok {
			return string(n), true
		}
	}
	return nil, false
}

var printer = message.NewPrinter(language.English)

// argumentError turns a validation failure into messages that name fields.
func (as *argSchema) argumentError(ve *jsonschema.ValidationError) error {
	var errs argumentErrors
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		field := strings.Join(e.InstanceLocation, ".")
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				errs = append(errs, &ArgumentError{Field: join(field, m), Problem: "missing required argument"})
			}
			return
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				problem := "unknown argument"
				if field == "" && len(as.visible) > 0 {
					problem += " (arguments: " + strings.Join(as.visible, ", ") + ")"
				}
				errs = append(errs, &ArgumentError{Field: join(field, p), Problem: problem})
			}
			return
		case *kind.OneOf, *kind.AnyOf:
			// nullable fields: "expected string or null, got integer"
			var want []string
			got := ""
			for _, c := range e.Causes {
				t, ok := c.ErrorKind.(*kind.Type)
				if !ok || len(c.Causes) > 0 {
					want = nil
					break
				}
				want, got = append(want, t.Want...), t.Got
			}
			if want != nil {
				errs = append(errs, &ArgumentError{Field: field, Problem: fmt.Sprintf("expected %s, got %s", strings.Join(want, " or "), got)})
				return
			}
		}
		if len(e.Causes) == 0 {
			errs = append(errs, &ArgumentError{Field: field, Problem: problem(e.ErrorKind)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.SortStableFunc(errs, func(a, b *ArgumentError) int { return strings.Compare(a.Field, b.Field) })
	errs = slices.CompactFunc(errs, func(a, b *ArgumentError) bool { return *a == *b })
	switch len(errs) {
	case 0:
		return &ArgumentError{Problem: ve.Error()}
	case 1:
		return errs[0]
	}
	return errs
}

func problem(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("expected %s, got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			b, _ := json.Marshal(w)
			want[i] = string(b)
		}
		return "must be one of " + strings.Join(want, ", ")
	case *kind.Format:
		return fmt.Sprintf("not a valid %s", k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("must be at least %s, got %s", k.Want.RatString(), k.Got.RatString())
	case *kind.Maximum:
		return fmt.Sprintf("must be at most %s, got %s", k.Want.RatString(), k.Got.RatString())
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d characters, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters, got %d", k.Want, k.Got)
	}
	return k.LocalizedString(printer)
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// decodeError turns an encoding/json failure after validation (an int8
// overflow, a custom UnmarshalJSON refusing a value) into an ArgumentError.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return &ArgumentError{Field: te.Field, Problem: fmt.Sprintf("cannot use %s as %s", te.Value, te.Type)}
	}
	return &ArgumentError{Problem: err.Error()}
}
