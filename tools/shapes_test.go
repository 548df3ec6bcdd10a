package tools

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestSchemaShapes covers the field types beyond scalars: time.Time, nested
// structs and nullable pointers.
func TestSchemaShapes(t *testing.T) {
	type window struct {
		From int `json:"from" jsonschema_description:"first hour"`
		To   int `json:"to,omitempty"`
	}
	type args struct {
		DueAt  time.Time `json:"due_at" jsonschema_description:"RFC 3339 with offset"`
		Window *window   `json:"window,omitempty"`
		Note   *string   `json:"note,omitempty" jsonschema:"nullable"`
	}
	tool := MustNew("shapes", "", func(_ context.Context, a args) (string, error) {
		b, _ := json.Marshal(a)
		return string(b), nil
	})
	got, _ := json.Marshal(tool.Meta().Parameters)
	want := `{"type":"object","required":["due_at"],"properties":{"due_at":{"type":"string","description":"RFC 3339 with offset (format: date-time)"},"window":{"type":"object","properties":{"from":{"type":"integer","description":"first hour"},"to":{"type":"integer"}}},"note":{"type":["string","null"]}}}`
	if string(got) != want {
		t.Errorf("parameters\n%s\nwant\n%s", got, want)
	}
	tests := []struct{ name, args, want string }{
		{"valid", `{"due_at":"2025-06-01T09:00:00+09:00","window":{"from":9},"note":null}`,
			`{"due_at":"2025-06-01T09:00:00+09:00","window":{"from":9}}`},
		{"bad date", `{"due_at":"tomorrow 9am"}`, `invalid argument "due_at": not a valid date-time`},
		{"nested missing", `{"due_at":"2025-06-01T09:00:00Z","window":{}}`, `invalid argument "window.from": missing required argument`},
		{"nested unknown", `{"due_at":"2025-06-01T09:00:00Z","window":{"from":1,"x":2}}`, `invalid argument "window.x": unknown argument`},
		{"nullable wrong type", `{"due_at":"2025-06-01T09:00:00Z","note":5}`, `invalid argument "note": expected string or null, got number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tool.Execute(t.Context(), json.RawMessage(tc.args))
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Execute(%s) = %s\nwant %s", tc.args, got, tc.want)
			}
		})
	}
}
