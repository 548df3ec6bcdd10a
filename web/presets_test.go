package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
)

// TestModelPresets: a preset names an installed model; one Ollama does not
// have is refused on its field, naming the pull to run.
func TestModelPresets(t *testing.T) {
	c := newAPI(t).c
	var p db.ModelPreset
	if code := c.call("POST", "/api/models/presets", presetRequest{Label: "速い", Model: "qwen3:4b"}, &p); code != http.StatusCreated || p.ID == 0 {
		t.Fatalf("create = %d %+v", code, p)
	}
	for _, tc := range []struct {
		name  string
		body  any
		code  int
		field string
	}{
		{"same label", presetRequest{Label: "速い", Model: "qwen3:4b"}, http.StatusConflict, "label"},
		{"a model not installed", presetRequest{Label: "賢い", Model: "llama3:70b"}, http.StatusBadRequest, "model"},
		{"no model", presetRequest{Label: "賢い"}, http.StatusBadRequest, "model"},
		{"label not a string", `{"label": ["x"], "model": "m"}`, http.StatusBadRequest, "label"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, e := c.callErr("POST", "/api/models/presets", tc.body)
			if code != tc.code || e.Field != tc.field {
				t.Errorf("= %d %+v, want %d naming %q", code, e, tc.code, tc.field)
			}
			if tc.name == "a model not installed" && !strings.Contains(e.Error, "インストールされていません") {
				t.Errorf("the refusal reads %q", e.Error)
			}
		})
	}
	var list []db.ModelPreset
	if code := c.call("GET", "/api/models/presets", nil, &list); code != http.StatusOK || len(list) != 1 || list[0].Model != "qwen3:4b" {
		t.Fatalf("list = %d %+v", code, list)
	}
	if code := c.call("DELETE", "/api/models/presets/999", nil, nil); code != http.StatusNotFound {
		t.Errorf("delete unknown = %d, want 404", code)
	}
	if code := c.call("DELETE", "/api/models/presets/abc", nil, nil); code != http.StatusNotFound {
		t.Errorf("delete non-numeric = %d, want 404", code)
	}
	if code := c.call("DELETE", "/api/models/presets/1", nil, nil); code != http.StatusNoContent {
		t.Errorf("delete = %d", code)
	}
	if code := c.call("GET", "/api/models/presets", nil, &list); code != http.StatusOK || len(list) != 0 {
		t.Errorf("after delete = %d %+v", code, list)
	}
}
