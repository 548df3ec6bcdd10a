package commands

import "testing"

// Options arrive as Discord's JSON decodes them, or as another server
// spells them: each accessor takes what it can.
func TestRequestOptions(t *testing.T) {
	req := Request{Options: map[string]any{
		"text": "  海賊  ", "id": int64(7), "n": float64(12), "s": " 42 ", "yes": true, "word": "true", "none": nil,
	}}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"string trimmed", req.String("text"), "海賊"},
		{"int from int64", req.Int("id"), int64(7)},
		{"int from a JSON number", req.Int("n"), int64(12)},
		{"int from a string", req.Int("s"), int64(42)},
		{"int of text", req.Int("text"), int64(0)},
		{"missing int", req.Int("missing"), int64(0)},
		{"bool", req.Bool("yes"), true},
		{"bool from a string", req.Bool("word"), true},
		{"missing bool", req.Bool("none"), false},
		{"string of a number", req.String("n"), "12"},
		{"string of nil", req.String("none"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %#v, want %#v", tc.got, tc.want)
			}
		})
	}
}

func TestRequired(t *testing.T) {
	c := Command{Require: ManageMessages, Options: []Option{
		{Type: Subcommand, Name: "set", Require: ManageChannels},
		{Type: Subcommand, Name: "show"},
	}}
	for sub, want := range map[string]Permission{"set": ManageChannels, "show": ManageMessages, "": ManageMessages, "other": ManageMessages} {
		if got := c.Required(sub); got != want {
			t.Errorf("Required(%q) = %v, want %v", sub, got, want)
		}
	}
	if r := (Request{Perms: ManageChannels}); !r.Can(ManageChannels) || r.Can(ManageMessages) || r.Can(All) {
		t.Error("Can does not check each permission")
	}
	if r := (Request{Perms: All}); !r.Can(ManageMessages | ManageChannels) {
		t.Error("All lacks a permission")
	}
}
