package web

import (
	"net/http"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
)

func TestModelPresets(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.quickSession(t)
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
		{"same label", presetRequest{Label: "速い", Model: "gemma3"}, http.StatusConflict, "label"},
		{"no model", presetRequest{Label: "賢い"}, http.StatusBadRequest, "model"},
		{"label not a string", `{"label": ["x"], "model": "m"}`, http.StatusBadRequest, "label"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, e := c.callErr("POST", "/api/models/presets", tc.body); code != tc.code || e.Field != tc.field {
				t.Errorf("= %d %+v, want %d naming %q", code, e, tc.code, tc.field)
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
