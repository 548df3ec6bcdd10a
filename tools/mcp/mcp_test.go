package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yorozu-bot/yorozu/tools"
)

type lookupIn struct {
	Title string `json:"title" jsonschema:"page title to look up"`
	Lang  string `json:"lang,omitempty" jsonschema:"language code"`
}

// wikiServer is an in-process MCP server from the same SDK, served over
// streamable HTTP.
func wikiServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "wiki", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "lookup", Description: "Look up a wiki page."},
		func(ctx context.Context, req *sdk.CallToolRequest, in lookupIn) (*sdk.CallToolResult, any, error) {
			if in.Title == "missing" {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no page named missing"}}}, nil, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "# " + in.Title},
				&sdk.TextContent{Text: "lang=" + in.Lang},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "random.page", Description: "A random page."},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Kyoto"}}}, nil, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv
}

func TestConnectAndCall(t *testing.T) {
	wiki := wikiServer(t)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	var logs bytes.Buffer
	servers, err := Connect(t.Context(), []ServerConfig{
		{Name: "down", URL: down.URL + "/mcp"},
		{Name: "wiki", URL: wiki.URL},
		{Name: "nocmd", Command: "/nonexistent/yorozu-mcp-server"},
	}, Options{Version: "test", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { servers.Close() })
	for _, name := range []string{"down", "nocmd"} {
		if !strings.Contains(logs.String(), "server="+name) {
			t.Errorf("skipped server %s not logged:\n%s", name, logs.String())
		}
	}

	reg := tools.NewRegistry()
	for _, tl := range servers.Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(reg.Names(), ","); got != "wiki_lookup,wiki_random_page" {
		t.Fatalf("tools = %s", got)
	}
	var meta tools.Meta
	for _, tl := range servers.Tools() {
		if tl.Meta().Name == "wiki_lookup" {
			meta = tl.Meta()
		}
	}
	if meta.Description != "Look up a wiki page." || meta.Parameters.Type != "object" ||
		strings.Join(meta.Parameters.Required, ",") != "title" {
		t.Errorf("meta = %+v", meta)
	}
	if p, ok := meta.Parameters.Properties.Get("title"); !ok || p.Description != "page title to look up" {
		t.Errorf("title property = %+v, %v", p, ok)
	}

	out, err := reg.Call(t.Context(), "wiki_lookup", json.RawMessage(`{"title":"京都","lang":"ja"}`))
	if err != nil || out != "# 京都\nlang=ja" {
		t.Errorf("call = %q, %v", out, err)
	}
	if out, err := reg.Call(t.Context(), "wiki_random_page", nil); err != nil || out != "Kyoto" {
		t.Errorf("call without arguments = %q, %v", out, err)
	}
	_, err = reg.Call(t.Context(), "wiki_lookup", json.RawMessage(`{"title":"missing"}`))
	if err == nil || err.Error() != "no page named missing" {
		t.Errorf("isError result: err = %v", err)
	}
}

func TestParseServers(t *testing.T) {
	files := map[string]string{"/etc/yorozu/mcp.json": `[{"name":"files","command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/data"],"env":{"DEBUG":"1"}}]`}
	readFile := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	got, err := ParseServers(`[{"name":"files","command":"npx","args":["-y","x"],"env":{"A":"b"}},{"name":"wiki","url":"http://wiki.lan/mcp"}]`, readFile)
	if err != nil || len(got) != 2 || got[0].Env["A"] != "b" || got[1].URL != "http://wiki.lan/mcp" {
		t.Errorf("inline = %+v, %v", got, err)
	}
	got, err = ParseServers("/etc/yorozu/mcp.json", readFile)
	if err != nil || len(got) != 1 || got[0].Args[2] != "/data" {
		t.Errorf("file = %+v, %v", got, err)
	}
	if got, err := ParseServers("  ", readFile); err != nil || got != nil {
		t.Errorf("empty = %+v, %v", got, err)
	}
	for _, bad := range []string{
		`[{"name":"a"}]`,
		`[{"name":"a","command":"x","url":"http://y"}]`,
		`[{"name":"a b","command":"x"}]`,
		`[{"name":"a","command":"x"},{"name":"a","command":"y"}]`,
		`[{"name":"a","url":"ftp://x"}]`,
		`[{"name":"a","command":"x","typo":1}]`,
		`{"name":"a"}`,
		"/missing.json",
	} {
		if _, err := ParseServers(bad, readFile); err == nil {
			t.Errorf("ParseServers(%s) accepted", bad)
		} else if !strings.Contains(err.Error(), "MCP_SERVERS") {
			t.Errorf("error %q does not name MCP_SERVERS", err)
		}
	}
}

func TestConnectCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Connect(ctx, []ServerConfig{{Name: "x", URL: "http://127.0.0.1:1/"}}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

// Probe lists a server's tools as the model sees them and reports one that
// does not start.
func TestProbe(t *testing.T) {
	wiki := wikiServer(t)
	names, err := Probe(t.Context(), ServerConfig{Name: "wiki", URL: wiki.URL}, Options{})
	if err != nil || strings.Join(names, ",") != "wiki_lookup,wiki_random_page" {
		t.Errorf("Probe(wiki) = %v, %v", names, err)
	}
	_, err = Probe(t.Context(), ServerConfig{Name: "nocmd", Command: "/nonexistent/yorozu-mcp-server"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "mcp server nocmd") {
		t.Errorf("Probe(nocmd) = %v", err)
	}
}
