package config

import (
	"net/url"
	"slices"
	"strings"
)

// OpenAIConfig is one OpenAI-compatible model server (llama-server, vLLM,
// LM Studio, KoboldCPP, hosted APIs) and what its models can do.
type OpenAIConfig struct {
	// BaseURL is the server's API root (OPENAI_BASE_URL), usually ending in
	// /v1, e.g. http://127.0.0.1:8080/v1. Empty: no such server. With it
	// set and OLLAMA_HOST unset, yorozu needs no Ollama at all.
	BaseURL string
	// APIKey is sent as a bearer token (OPENAI_API_KEY); local servers mostly
	// need none. Secret.
	APIKey string
	// Capabilities are capability names by model name (MODEL_CAPABILITIES,
	// "name:vision,tools;name2:tools"). A model not listed is probed once.
	Capabilities map[string][]string
}

// ModelCapabilityNames are the capabilities MODEL_CAPABILITIES accepts
// (Ollama's names).
var ModelCapabilityNames = []string{"completion", "tools", "vision", "thinking", "embedding"}

// OpenAIOnly reports whether the bot runs on the OpenAI-compatible server
// alone: OPENAI_BASE_URL set, OLLAMA_HOST not.
func (c *Config) OpenAIOnly() bool { return c.OpenAI.BaseURL != "" && !c.OllamaHostSet }

// OpenAIAlone is OPENAI_BASE_URL when the bot runs on it alone (OpenAIOnly),
// else "".
func (c *Config) OpenAIAlone() string {
	if c.OpenAIOnly() {
		return c.OpenAI.BaseURL
	}
	return ""
}

func (p *parser) openAI() OpenAIConfig {
	o := OpenAIConfig{
		APIKey:       strings.TrimSpace(p.getenv("OPENAI_API_KEY")),
		Capabilities: p.modelCapabilities("MODEL_CAPABILITIES"),
	}
	if v := p.value("OPENAI_BASE_URL", ""); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.fail("OPENAI_BASE_URL", "must be an absolute http(s) URL such as http://127.0.0.1:8080/v1, got %q", RedactURL(v))
		} else {
			o.BaseURL = strings.TrimSuffix(v, "/")
		}
	}
	if o.APIKey != "" && o.BaseURL == "" {
		p.fail("OPENAI_API_KEY", "is set but OPENAI_BASE_URL is not (use https://api.openai.com/v1 for OpenAI itself)")
	}
	return o
}

// modelCapabilities reads "name:cap,cap;name2:cap". A model name may hold
// colons itself (OpenRouter's "qwen/qwen3-8b:free"): the capabilities
// follow the last one.
func (p *parser) modelCapabilities(name string) map[string][]string {
	v := p.value(name, "")
	if v == "" {
		return nil
	}
	out := map[string][]string{}
	for entry := range strings.SplitSeq(v, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		i := strings.LastIndex(entry, ":")
		if i <= 0 {
			p.fail(name, "entry %q must be model:capability,… (e.g. qwen3-vl-8b:vision,tools)", entry)
			continue
		}
		model := strings.TrimSpace(entry[:i])
		if _, dup := out[model]; dup {
			p.fail(name, "lists model %q twice", model)
			continue
		}
		var caps []string
		for c := range strings.SplitSeq(entry[i+1:], ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if !slices.Contains(ModelCapabilityNames, c) {
				p.fail(name, "entry %q: unknown capability %q (known: %s)", entry, c, strings.Join(ModelCapabilityNames, ", "))
				caps = nil
				break
			}
			if !slices.Contains(caps, c) {
				caps = append(caps, c)
			}
		}
		if caps != nil {
			out[model] = caps
		}
	}
	return out
}
