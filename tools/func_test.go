package tools

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

type searchArgs struct {
	Query      string   `json:"query" jsonschema_description:"what to look for, in any language"`
	MaxResults int      `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=10,default=5" jsonschema_description:"how many results to return"`
	Region     string   `json:"region,omitempty" jsonschema:"enum=jp,enum=us,default=jp"`
	SafeSearch bool     `json:"safe_search,omitempty" jsonschema:"default=true"`
	Sites      []string `json:"sites,omitempty" jsonschema_description:"only results from these hosts"`
	SessionID  string   `json:"session_id,omitempty" tool:"hidden"`
}

// echo returns the decoded arguments as JSON, so tests see what the function got.
func echo[A any](_ context.Context, a A) (string, error) {
	b, err := json.Marshal(a)
	return string(b), err
}

func TestDefinitionsGolden(t *testing.T) {
	r := NewRegistry()
	type noteArgs struct {
		Page int `json:"page" jsonschema_description:"page number, from 1"`
	}
	// Registered out of order: the model must see them sorted.
	r.MustRegister(
		MustNew("web_search", "Search the web.", echo[searchArgs]),
		MustNew("read_note", "Read a shared note page.", echo[noteArgs]),
	)
	got, err := json.MarshalIndent(r.Definitions(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.MarshalIndent(r.Definitions(), "", "  ")
	if string(got) != string(again) {
		t.Fatalf("Definitions not stable:\n%s\n%s", got, again)
	}
	if strings.Contains(string(got), "session_id") {
		t.Errorf("hidden argument shown to the model:\n%s", got)
	}
	golden := filepath.Join("testdata", "definitions.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(want)) != string(got) {
		t.Errorf("Definitions differ from %s (go test -update to accept):\n%s", golden, got)
	}

	// What the model sees survives the ollama client's own round trip.
	var back api.Tools
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	p := back[1].Function.Parameters
	var order []string
	for k := range p.Properties.All() {
		order = append(order, k)
	}
	if strings.Join(order, ",") != "query,max_results,region,safe_search,sites" {
		t.Errorf("properties not in field order: %v", order)
	}
	if strings.Join(p.Required, ",") != "query" {
		t.Errorf("required = %v, want [query]", p.Required)
	}
}

func TestNewRejects(t *testing.T) {
	type badTag struct {
		X string `json:"x" tool:"secret"`
	}
	type badDefault struct {
		N []int `json:"n,omitempty" jsonschema:"default=x"`
	}
	type withChan struct {
		C chan int `json:"c"`
	}
	ok := func(context.Context, searchArgs) (string, error) { return "", nil }
	tests := []struct {
		name string
		new  func() (Tool, error)
		want string
	}{
		{"empty name", func() (Tool, error) { return New("", "", ok) }, "name must match"},
		{"name with space", func() (Tool, error) { return New("web search", "", ok) }, "name must match"},
		{"name too long", func() (Tool, error) { return New(strings.Repeat("a", 65), "", ok) }, "name must match"},
		{"nil func", func() (Tool, error) { return New[searchArgs]("t", "", nil) }, "nil function"},
		{"not a struct", func() (Tool, error) {
			return New("t", "", func(context.Context, string) (string, error) { return "", nil })
		}, "must be a struct"},
		{"unknown tool tag", func() (Tool, error) { return New("t", "", echo[badTag]) }, `unknown tool tag "secret"`},
		{"default that does not fit", func() (Tool, error) { return New("t", "", echo[badDefault]) }, "defaults"},
		{"unsupported field type", func() (Tool, error) { return New("t", "", echo[withChan]) }, "unsupported type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := tc.new()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, %v; want error containing %q", tool, err, tc.want)
			}
		})
	}
	t.Run("MustNew panics", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("MustNew did not panic")
			}
		}()
		MustNew("bad name", "", ok)
	})
}

func TestExecuteArguments(t *testing.T) {
	var got searchArgs
	tool := MustNew("web_search", "Search the web.", func(_ context.Context, a searchArgs) (string, error) {
		got = a
		return "ok", nil
	})
	// with returns the arguments a call with only query=q decodes to, changed by f.
	with := func(f func(*searchArgs)) searchArgs {
		a := searchArgs{Query: "q", MaxResults: 5, Region: "jp", SafeSearch: true}
		if f != nil {
			f(&a)
		}
		return a
	}
	tests := []struct {
		name    string
		args    string
		want    searchArgs
		wantErr string // exact error message
	}{
		{name: "defaults for missing optional fields", args: `{"query":"q"}`, want: with(nil)},
		{name: "all given", args: `{"query":"q","max_results":2,"region":"us","safe_search":false,"sites":["a.jp"]}`,
			want: searchArgs{Query: "q", MaxResults: 2, Region: "us", SafeSearch: false, Sites: []string{"a.jp"}}},
		{name: "numeric string for integer", args: `{"query":"q","max_results":" 7"}`,
			want: with(func(a *searchArgs) { a.MaxResults = 7 })},
		{name: "integral float for integer", args: `{"query":"q","max_results":3.0}`,
			want: with(func(a *searchArgs) { a.MaxResults = 3 })},
		{name: "string boolean", args: `{"query":"q","safe_search":"False"}`,
			want: with(func(a *searchArgs) { a.SafeSearch = false })},
		{name: "number for string", args: `{"query":42}`,
			want: with(func(a *searchArgs) { a.Query = "42" })},
		{name: "null optional takes default", args: `{"query":"q","max_results":null,"region":null}`, want: with(nil)},
		{name: "double-encoded arguments", args: `"{\"query\":\"q\"}"`, want: with(nil)},
		{name: "hidden argument accepted", args: `{"query":"q","session_id":"s1"}`,
			want: with(func(a *searchArgs) { a.SessionID = "s1" })},

		{name: "wrong type", args: `{"query":"q","max_results":"five"}`,
			wantErr: `invalid argument "max_results": expected integer, got string`},
		{name: "fractional integer", args: `{"query":"q","max_results":2.5}`,
			wantErr: `invalid argument "max_results": expected integer, got number`},
		{name: "missing required", args: `{"max_results":3}`,
			wantErr: `invalid argument "query": missing required argument`},
		{name: "null required", args: `{"query":null}`,
			wantErr: `invalid argument "query": expected string, got null`},
		{name: "empty arguments", args: ``,
			wantErr: `invalid argument "query": missing required argument`},
		{name: "unknown field", args: `{"query":"q","lang":"ja"}`,
			wantErr: `invalid argument "lang": unknown argument (arguments: query, max_results, region, safe_search, sites)`},
		{name: "not in enum", args: `{"query":"q","region":"fr"}`,
			wantErr: `invalid argument "region": must be one of "jp", "us"`},
		{name: "above maximum", args: `{"query":"q","max_results":11}`,
			wantErr: `invalid argument "max_results": must be at most 10, got 11`},
		{name: "wrong item type", args: `{"query":"q","sites":["a",1]}`,
			wantErr: `invalid argument "sites.1": expected string, got number`},
		{name: "several problems", args: `{"max_results":"x","region":"fr"}`,
			wantErr: `invalid argument "max_results": expected integer, got string; invalid argument "query": missing required argument; invalid argument "region": must be one of "jp", "us"`},
		{name: "not JSON", args: `{"query":`,
			wantErr: `invalid argument: arguments are not valid JSON: unexpected EOF`},
		{name: "not an object", args: `["q"]`,
			wantErr: `invalid argument: arguments must be a JSON object, got array`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got = searchArgs{}
			_, err := tool.Execute(t.Context(), json.RawMessage(tc.args))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Execute(%s) error = %v\nwant %s", tc.args, err, tc.wantErr)
				}
				if !errors.Is(err, ErrInvalidArgument) {
					t.Errorf("error does not match ErrInvalidArgument")
				}
				return
			}
			if err != nil {
				t.Fatalf("Execute(%s): %v", tc.args, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Execute(%s) decoded\n%+v\nwant\n%+v", tc.args, got, tc.want)
			}
		})
	}
}

func TestMetaIsACopy(t *testing.T) {
	tool := MustNew("web_search", "Search the web.", echo[searchArgs])
	before, _ := json.Marshal(tool.Meta().Parameters)

	m := tool.Meta()
	m.Parameters.Required[0] = "changed"
	m.Parameters.Properties.Set("extra", api.ToolProperty{Type: api.PropertyType{"string"}})
	q, _ := m.Parameters.Properties.Get("region")
	q.Enum[0] = "changed"
	q.Type[0] = "changed"

	r := NewRegistry()
	r.MustRegister(tool)
	d := r.Definitions()
	d[0].Function.Parameters.Required[0] = "changed too"

	after, _ := json.Marshal(tool.Meta().Parameters)
	if string(before) != string(after) {
		t.Errorf("Meta changed by its caller:\n%s\n%s", before, after)
	}
	if got := r.Definitions()[0].Function.Parameters.Required[0]; got != "query" {
		t.Errorf("Definitions changed by its caller: required[0] = %q", got)
	}
}
