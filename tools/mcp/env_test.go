package mcp

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// environServerVar, set in a process's environment, makes the test binary a
// stdio MCP server whose one tool, environ, answers with the environment
// the process got.
const environServerVar = "YOROZU_MCP_TEST_ENVIRON_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(environServerVar) == "1" {
		serveEnviron()
		return
	}
	os.Exit(m.Run())
}

func serveEnviron() {
	s := sdk.NewServer(&sdk.Implementation{Name: "environ", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "environ", Description: "The server's environment."},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "environ server:", err)
		os.Exit(1)
	}
}

// A stdio server gets PATH, HOME, LANG, TZ and USER from the bot and the
// variables its own env names, and none of the bot's secrets.
func TestStdioServerEnvironment(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"DISCORD_TOKEN":  "discord-secret",
		"DATABASE_URL":   "postgres://yorozu:db-secret@db/yorozu",
		"ADMIN_PASSWORD": "admin-secret",
		"OLLAMA_URL":     "http://ollama:11434",
		"HOME":           "/home/yorozu",
		"LANG":           "ja_JP.UTF-8",
		"TZ":             "Asia/Tokyo",
		"USER":           "yorozu",
	} {
		t.Setenv(k, v)
	}
	path := os.Getenv("PATH")

	tests := []struct {
		name    string
		environ []string // Options.Environ; nil: the test process's
		env     map[string]string
		want    map[string]string // besides environServerVar
	}{
		{
			name: "bot's environment and the server's env",
			env:  map[string]string{"WIKI_TOKEN": "wiki-token"},
			want: map[string]string{
				"PATH": path, "HOME": "/home/yorozu", "LANG": "ja_JP.UTF-8", "TZ": "Asia/Tokyo", "USER": "yorozu",
				"WIKI_TOKEN": "wiki-token",
			},
		},
		{
			name: "the server's env wins",
			env:  map[string]string{"LANG": "C.UTF-8", "TZ": "UTC"},
			want: map[string]string{"PATH": path, "HOME": "/home/yorozu", "LANG": "C.UTF-8", "TZ": "UTC", "USER": "yorozu"},
		},
		{
			name:    "only what is set is passed",
			environ: []string{"PATH=/opt/yorozu/bin", "DISCORD_TOKEN=discord-secret", "TZ=", "LANGUAGE=ja"},
			want:    map[string]string{"PATH": "/opt/yorozu/bin", "TZ": ""},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{environServerVar: "1"}
			maps.Copy(env, tc.env)
			// -test.run=^$: were the variable not passed, the child would
			// run no tests instead of these again.
			cfg := ServerConfig{Name: "environ", Command: bin, Args: []string{"-test.run=^$"}, Env: env}
			servers, err := Connect(t.Context(), []ServerConfig{cfg}, Options{Environ: tc.environ})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { servers.Close() })
			tl := servers.Tools()
			if len(tl) != 1 {
				t.Fatalf("tools = %d, want the environ server's one", len(tl))
			}
			out, err := tl[0].Execute(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, kv := range strings.Split(out, "\n") {
				k, v, _ := strings.Cut(kv, "=")
				got[k] = v
			}
			for _, secret := range []string{"DISCORD_TOKEN", "DATABASE_URL", "ADMIN_PASSWORD"} {
				if _, ok := got[secret]; ok {
					t.Errorf("the server got %s", secret)
				}
			}
			want := map[string]string{environServerVar: "1"}
			maps.Copy(want, tc.want)
			if !maps.Equal(got, want) {
				t.Errorf("the server's environment:\n%s\nwant the variables %v", out, slices.Sorted(maps.Keys(want)))
			}
		})
	}
}
