package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/tools"
)

// ServerConfig is one entry of MCP_SERVERS: either Command (stdio) or URL
// (streamable HTTP).
type ServerConfig struct {
	Name    string   `json:"name"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Env is the variables a stdio server gets besides inheritedEnv's; they
	// win over the bot's values of the same name.
	Env map[string]string `json:"env,omitempty"`
	URL string            `json:"url,omitempty"`
}

// inheritedEnv are the variables of the bot's environment a stdio server
// gets, when set. Everything else (DISCORD_TOKEN, DATABASE_URL,
// ADMIN_PASSWORD, …) stays with the bot: a server that needs a variable
// names it in its own env.
var inheritedEnv = []string{"PATH", "HOME", "LANG", "TZ", "USER"}

// serverEnv is the environment of a stdio server: inheritedEnv's variables
// as environ (KEY=value lines) has them, then own's in key order, own
// replacing an inherited one of the same name. It is never nil: a nil
// Env would hand the command the bot's whole environment.
func serverEnv(environ []string, own map[string]string) []string {
	env := []string{}
	for _, key := range inheritedEnv {
		if _, ok := own[key]; ok {
			continue
		}
		for _, kv := range environ {
			if k, _, ok := strings.Cut(kv, "="); ok && k == key {
				env = append(env, kv)
				break
			}
		}
	}
	keys := make([]string, 0, len(own))
	for k := range own {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = append(env, k+"="+own[k])
	}
	return env
}

var serverName = regexp.MustCompile(`^[a-zA-Z0-9-]{1,32}$`)

// ParseServers reads MCP_SERVERS: a JSON list, or the path of a file that
// holds one (read with readFile, os.ReadFile in production).
func ParseServers(value string, readFile func(string) ([]byte, error)) ([]ServerConfig, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, nil
	}
	data := []byte(value)
	if !strings.HasPrefix(value, "[") {
		var err error
		if data, err = readFile(value); err != nil {
			return nil, fmt.Errorf("MCP_SERVERS: read %s: %w", value, err)
		}
	}
	var servers []ServerConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&servers); err != nil {
		return nil, fmt.Errorf("MCP_SERVERS: %w", err)
	}
	seen := map[string]bool{}
	for i, s := range servers {
		switch {
		case !serverName.MatchString(s.Name):
			return nil, fmt.Errorf("MCP_SERVERS[%d]: name %q must be 1-32 letters, digits or '-'", i, s.Name)
		case seen[s.Name]:
			return nil, fmt.Errorf("MCP_SERVERS[%d]: duplicate name %q", i, s.Name)
		case (s.Command == "") == (s.URL == ""):
			return nil, fmt.Errorf("MCP_SERVERS[%d] (%s): set exactly one of command and url", i, s.Name)
		case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
			return nil, fmt.Errorf("MCP_SERVERS[%d] (%s): url must be http(s)", i, s.Name)
		}
		seen[s.Name] = true
	}
	return servers, nil
}

// Options configures Connect.
type Options struct {
	// Version is yorozu's version, sent to servers as the client version.
	Version string
	// HTTPClient reaches URL servers; default: http.DefaultClient. The
	// operator chose these URLs, so this is not the guarded client.
	HTTPClient *http.Client
	// ConnectTimeout bounds connecting to and listing one server; default 20 s.
	ConnectTimeout time.Duration
	// Logger receives one line per skipped server; default slog.Default().
	Logger *slog.Logger
	// Environ is the bot's environment (KEY=value lines), of which a stdio
	// server gets only inheritedEnv's variables; default os.Environ().
	Environ []string
}

// Servers holds the open sessions and their tools.
type Servers struct {
	mu       sync.Mutex
	sessions []*sdk.ClientSession
	tools    []tools.Tool
}

// Connect connects to every server, lists its tools and wraps them. Servers
// that fail are logged and skipped, so the error is only for a cancelled ctx.
func Connect(ctx context.Context, servers []ServerConfig, opts Options) (*Servers, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 20 * time.Second
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "yorozu", Version: opts.Version}, nil)
	s := &Servers{}
	for _, cfg := range servers {
		if err := ctx.Err(); err != nil {
			s.Close()
			return nil, err
		}
		n, err := s.connect(ctx, client, cfg, opts)
		if err != nil {
			opts.Logger.Warn("mcp server skipped", "server", cfg.Name, "err", err)
			continue
		}
		opts.Logger.Info("mcp server connected", "server", cfg.Name, "tools", n)
	}
	return s, nil
}

func (s *Servers) connect(ctx context.Context, client *sdk.Client, cfg ServerConfig, opts Options) (int, error) {
	var transport sdk.Transport
	if cfg.URL != "" {
		hc := opts.HTTPClient
		if hc == nil {
			hc = http.DefaultClient
		}
		transport = &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: hc, MaxRetries: 1}
	} else {
		// The command outlives this call, so it must not take ctx's deadline.
		cmd := exec.Command(cfg.Command, cfg.Args...)
		environ := opts.Environ
		if environ == nil {
			environ = os.Environ()
		}
		cmd.Env = serverEnv(environ, cfg.Env)
		transport = &sdk.CommandTransport{Command: cmd}
	}
	cctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
	defer cancel()
	cs, err := client.Connect(cctx, transport, nil)
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	var wrapped []tools.Tool
	for t, err := range cs.Tools(cctx, nil) {
		if err != nil {
			cs.Close()
			return 0, fmt.Errorf("list tools: %w", err)
		}
		w, err := wrap(cs, cfg.Name, t)
		if err != nil {
			opts.Logger.Warn("mcp tool skipped", "server", cfg.Name, "tool", t.Name, "err", err)
			continue
		}
		wrapped = append(wrapped, w)
	}
	s.mu.Lock()
	s.sessions = append(s.sessions, cs)
	s.tools = append(s.tools, wrapped...)
	s.mu.Unlock()
	return len(wrapped), nil
}

// Probe connects to one server as Connect would, lists the names of the
// tools it offers (as the model would see them, "<server>_<tool>"), and
// closes the session again, stopping a stdio server. It calls no tool.
func Probe(ctx context.Context, cfg ServerConfig, opts Options) ([]string, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 20 * time.Second
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "yorozu", Version: opts.Version}, nil)
	s := &Servers{}
	defer s.Close()
	if _, err := s.connect(ctx, client, cfg, opts); err != nil {
		return nil, fmt.Errorf("mcp server %s: %w", cfg.Name, err)
	}
	names := make([]string, 0, len(s.tools))
	for _, t := range s.Tools() {
		names = append(names, t.Meta().Name)
	}
	return names, nil
}

// Tools returns the wrapped tools of all connected servers.
func (s *Servers) Tools() []tools.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]tools.Tool(nil), s.tools...)
}

// Close ends every session (stopping stdio servers). It is idempotent.
func (s *Servers) Close() error {
	s.mu.Lock()
	sessions := s.sessions
	s.sessions = nil
	s.mu.Unlock()
	var errs []error
	for _, cs := range sessions {
		if err := cs.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

var invalidNameChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// tool is one MCP tool offered to the model.
type tool struct {
	meta    tools.Meta
	remote  string
	session *sdk.ClientSession
}

func wrap(cs *sdk.ClientSession, server string, t *sdk.Tool) (*tool, error) {
	name := invalidNameChars.ReplaceAllString(server+"_"+t.Name, "_")
	if len(name) > 64 {
		return nil, fmt.Errorf("tool name %q is longer than 64 characters", name)
	}
	params, err := convertSchema(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema of %s: %w", t.Name, err)
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return &tool{
		meta:    tools.Meta{Name: name, Description: desc, Parameters: params},
		remote:  t.Name,
		session: cs,
	}, nil
}

// convertSchema turns an MCP input schema (a JSON schema object) into
// Ollama's parameters type through JSON, keeping property order.
func convertSchema(schema any) (api.ToolFunctionParameters, error) {
	var p api.ToolFunctionParameters
	raw, err := json.Marshal(schema)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, err
	}
	if p.Type == "" {
		p.Type = "object"
	}
	if p.Properties == nil {
		p.Properties = api.NewToolPropertiesMap()
	}
	return p, nil
}

// Meta returns the tool's name, description and schema.
func (t *tool) Meta() tools.Meta { return t.meta }

// Execute calls the remote tool. Text content is joined with newlines; a
// result flagged isError becomes an error carrying that text.
func (t *tool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var arguments map[string]any
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if err := json.Unmarshal(trimmed, &arguments); err != nil {
			return "", &tools.ArgumentError{Problem: "arguments must be a JSON object"}
		}
	}
	if arguments == nil {
		arguments = map[string]any{}
	}
	res, err := t.session.CallTool(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: arguments})
	if err != nil {
		return "", fmt.Errorf("call %s: %w", t.meta.Name, err)
	}
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, "[image: "+c.MIMEType+"]")
		case *sdk.AudioContent:
			parts = append(parts, "[audio: "+c.MIMEType+"]")
		case *sdk.ResourceLink:
			parts = append(parts, "[resource: "+c.URI+"]")
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if res.IsError {
		if text == "" {
			text = "tool reported an error"
		}
		return "", errors.New(text)
	}
	return text, nil
}
