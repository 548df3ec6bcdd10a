package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
)

// Kinds of model server.
const (
	KindOllama = "ollama" // Ollama's own API (/api/chat, /api/tags)
	KindOpenAI = "openai" // an OpenAI-compatible API (/v1/chat/completions)
)

// maxSlots bounds one server's slots, as LLM_CONCURRENCY is bounded.
const maxSlots = 64

// ModelServer is one model server of the pool (an entry of MODEL_SERVERS).
//
// MODEL_SERVERS lists the servers separated by ";" or new lines. An entry is
// its kind, its URL, then optional key=value words:
//
//		ollama http://gpu1:11434 slots=2 name=gpu1; openai http://gpu2:8080/v1 key=GPU2_KEY
//
//	  - kind: "ollama" or "openai" (an OpenAI-compatible server).
//	  - URL: http or https. An Ollama URL follows OLLAMA_HOST's rules (no
//	    port means 11434).
//	  - key=VAR: the name of the environment variable that holds the server's
//	    API key (never the key itself, so MODEL_SERVERS can be shown).
//	  - slots=N: answers the server makes at once, 1 to 64 (default 1).
//	  - name=NAME: how logs, /readyz, metrics and the admin page call it
//	    (default host:port).
type ModelServer struct {
	Kind string
	URL  *url.URL
	// KeyVar names the variable holding the API key; empty: none.
	KeyVar string
	// Key is that variable's value. Secret.
	Key   string
	Slots int
	Name  string
	// Capabilities are MODEL_CAPABILITIES, for an OpenAI-compatible
	// server: capability names by model name.
	Capabilities map[string][]string
}

// String is the server as in MODEL_SERVERS, with its URL's secrets masked
// (the key itself never appears: only its variable's name).
func (s ModelServer) String() string {
	out := fmt.Sprintf("%s %s slots=%d name=%s", s.Kind, RedactURL(s.URL.String()), s.Slots, s.Name)
	if s.KeyVar != "" {
		out += " key=" + s.KeyVar
	}
	return out
}

// LogValue is String, so a logged server never shows its key.
func (s ModelServer) LogValue() slog.Value { return slog.StringValue(s.String()) }

// serversText lists the servers for the log, "; "-separated.
func serversText(servers []ModelServer) string {
	parts := make([]string, len(servers))
	for i, s := range servers {
		parts[i] = s.String()
	}
	return strings.Join(parts, "; ")
}

// defaultServers is the pool when MODEL_SERVERS is unset: the Ollama of
// OLLAMA_HOST, the OpenAI-compatible server of OPENAI_BASE_URL, or both
// when both are set, each with LLM_CONCURRENCY slots. With only
// OPENAI_BASE_URL set no Ollama is needed.
func (c *Config) defaultServers() []ModelServer {
	var out []ModelServer
	if c.OpenAI.BaseURL == "" || c.OllamaHostSet {
		out = append(out, ModelServer{Kind: KindOllama, URL: c.OllamaHost, Slots: c.LLMConcurrency, Name: c.OllamaHost.Host})
	}
	if u, err := url.Parse(c.OpenAI.BaseURL); c.OpenAI.BaseURL != "" && err == nil {
		s := ModelServer{Kind: KindOpenAI, URL: u, KeyVar: "OPENAI_API_KEY", Key: c.OpenAI.APIKey, Slots: c.LLMConcurrency, Name: u.Host}
		if len(out) > 0 && out[0].Name == s.Name {
			s.Name += " (openai)"
		}
		out = append(out, s)
	}
	return out
}

// modelServers reads MODEL_SERVERS; unset, the pool is defaults. Each wrong
// entry is reported, naming it (its number and its text) and what is wrong.
func (p *parser) modelServers(name string, defaults []ModelServer) []ModelServer {
	v := p.value(name, "")
	if v == "" {
		return defaults
	}
	var out []ModelServer
	seen := map[string]int{}
	n := 0
	for entry := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == ';' || r == '\n' }) {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		n++
		s, err := parseModelServer(entry, p.getenv)
		if err != nil {
			p.fail(name, "entry %d (%q): %v", n, redactEntry(entry), err)
			continue
		}
		if first, ok := seen[s.Name]; ok {
			p.fail(name, "entry %d (%q): name %q is already entry %d's (give one of them name=…)", n, redactEntry(entry), s.Name, first)
			continue
		}
		seen[s.Name] = n
		out = append(out, s)
	}
	if n == 0 {
		p.fail(name, "lists no server (entries are separated by ';', e.g. %q)", "ollama http://gpu1:11434 slots=2")
	}
	return out
}

// parseModelServer reads one entry: kind, URL, then key=, slots=, name=.
func parseModelServer(entry string, getenv func(string) string) (ModelServer, error) {
	fields := strings.Fields(entry)
	s := ModelServer{Kind: fields[0], Slots: 1}
	if s.Kind != KindOllama && s.Kind != KindOpenAI {
		return s, fmt.Errorf("unknown kind %q (want %s or %s)", s.Kind, KindOllama, KindOpenAI)
	}
	if len(fields) < 2 {
		return s, fmt.Errorf("has no URL (write %s http://host:port)", s.Kind)
	}
	var err error
	if s.URL, err = serverURL(s.Kind, fields[1]); err != nil {
		return s, err
	}
	s.Name = s.URL.Host
	for _, f := range fields[2:] {
		k, val, ok := strings.Cut(f, "=")
		if !ok || val == "" {
			return s, fmt.Errorf("has %q where key=VAR, slots=N or name=NAME was expected", f)
		}
		switch k {
		case "key":
			s.KeyVar = val
			s.Key = strings.TrimSpace(getenv(val))
			if s.Key == "" {
				return s, fmt.Errorf("names key variable %s, which is unset", val)
			}
		case "slots":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > maxSlots {
				return s, fmt.Errorf("slots must be a whole number from 1 to %d, got %q", maxSlots, val)
			}
			s.Slots = n
		case "name":
			s.Name = val
		default:
			return s, fmt.Errorf("has unknown setting %q (want key, slots or name)", k)
		}
	}
	return s, nil
}

// serverURL reads a server's URL: Ollama's by OLLAMA_HOST's rules, an
// OpenAI-compatible one as given (its base, such as http://host:8080/v1).
func serverURL(kind, raw string) (*url.URL, error) {
	if kind == KindOllama {
		u, err := parseOllamaHost(raw)
		if err != nil {
			return nil, fmt.Errorf("URL %w", err)
		}
		return u, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("URL must be http(s)://host[:port][/path], got %q", RedactURL(raw))
	}
	return u, nil
}

// redactEntry is an entry with the secrets of its URL masked.
func redactEntry(entry string) string {
	fields := strings.Fields(entry)
	if len(fields) > 1 {
		fields[1] = RedactURL(fields[1])
	}
	return strings.Join(fields, " ")
}
