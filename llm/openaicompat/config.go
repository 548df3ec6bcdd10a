package openaicompat

import "github.com/yorozu-bot/yorozu/config"

// FromConfig returns the Client for the server the environment names
// (OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_CAPABILITIES).
func FromConfig(o config.OpenAIConfig) (*Client, error) {
	return New(Config{
		BaseURL:      o.BaseURL,
		APIKey:       o.APIKey,
		KeyVar:       "OPENAI_API_KEY",
		Capabilities: Capabilities(o.Capabilities),
	})
}
