package config

import (
	"bytes"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseDefaults(t *testing.T) {
	c, err := Parse(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"DISCORD_API_BASE", c.DiscordAPIBase, "https://discord.com/"},
		{"DATA_DIR", c.DataDir, "./data"},
		{"OLLAMA_HOST", c.OllamaHost.String(), "http://127.0.0.1:11434"},
		{"DEFAULT_MODEL", c.DefaultModel, "qwen3:4b"},
		{"REMINDER_MODEL", c.ReminderModel, "qwen3:4b"},
		{"WEATHER_NOTIFY_MODEL", c.WeatherNotifyModel, "qwen3:4b"},
		{"EMBED_MODEL", c.EmbedModel, "bge-m3"},
		{"LLM_CONCURRENCY", c.LLMConcurrency, 1},
		{"USER_RATE_LIMIT", c.UserRateLimit, 6},
		{"USER_RATE_LIMIT window", c.UserRateWindow, time.Minute},
		{"CONTEXT_TOKEN_BUDGET", c.ContextTokenBudget, 6000},
		{"HTTP_ADDR", c.HTTPAddr, "127.0.0.1:8080"},
		{"METRICS_PUBLIC", c.MetricsPublic, false},
		{"TIMEZONE", c.Location, time.Local},
		{"SEARCH_BACKEND", c.SearchBackend, "duckduckgo"},
		{"JMA_BASE_URL", c.JMABaseURL, "https://www.jma.go.jp/bosai/"},
		{"WEATHER_AREA_CODE", c.WeatherAreaCode, "130000"},
		{"WEATHER_CRON", c.WeatherCron, "30 6 * * *"},
		{"TIPS_CRON", c.TipsCron, "0 */3 * * *"},
		{"REMINDER_MAX_AHEAD_DAYS", c.ReminderMaxAheadDays, 365},
		{"REMINDER_MAX_PENDING", c.ReminderMaxPending, 50},
		{"SCHEDULE_MAX_PER_SPACE", c.ScheduleMaxPerSpace, 20},
		{"TOOL_TIMEOUT", c.ToolTimeout, 60 * time.Second},
		{"TURN_TIMEOUT", c.TurnTimeout, 5 * time.Minute},
		{"API_LOG_RETENTION", c.APILogRetention, 30 * 24 * time.Hour},
		{"CHANNEL_LOG_RETENTION", c.ChannelLogRetention, 90 * 24 * time.Hour},
		{"DIGEST_MIN_MESSAGES", c.DigestMinMessages, 5},
		{"LOG_FORMAT", c.LogFormat, "text"},
	}
	for _, tc := range checks {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestParseValues(t *testing.T) {
	dir := t.TempDir()
	mcpFile := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(mcpFile, []byte(`[{"name":"wiki","url":"http://127.0.0.1:9/mcp"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Parse(env(map[string]string{
		"DISCORD_API_BASE":      "http://127.0.0.1:9999",
		"OLLAMA_HOST":           "gpu-box",
		"DEFAULT_MODEL":         "gemma3:12b",
		"WEATHER_NOTIFY_MODEL":  "llama3.2",
		"USER_RATE_LIMIT":       "3/30s",
		"TIMEZONE":              "Asia/Tokyo",
		"FETCH_ALLOWLIST":       "wiki.internal, 10.0.0.0/8 ,Intranet:8443",
		"SEARCH_BACKEND":        "searxng",
		"SEARXNG_URL":           "http://searx.local",
		"MCP_SERVERS":           mcpFile,
		"TIPS_CHANNEL_ID":       "123456789012345678",
		"DISCORD_TOKEN":         "token",
		"TOOL_TIMEOUT":          "90s",
		"TURN_TIMEOUT":          "10m",
		"API_LOG_RETENTION":     "7d",
		"CHANNEL_LOG_RETENTION": "30d",
		"METRICS_PUBLIC":        "true",
		"LOG_FORMAT":            "json",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.ToolTimeout != 90*time.Second || c.TurnTimeout != 10*time.Minute || c.APILogRetention != 7*24*time.Hour {
		t.Errorf("TOOL_TIMEOUT %s TURN_TIMEOUT %s API_LOG_RETENTION %s", c.ToolTimeout, c.TurnTimeout, c.APILogRetention)
	}
	if c.ChannelLogRetention != 30*24*time.Hour {
		t.Errorf("CHANNEL_LOG_RETENTION %s, want 30 days", c.ChannelLogRetention)
	}
	if c.DiscordAPIBase != "http://127.0.0.1:9999/" {
		t.Errorf("DISCORD_API_BASE = %q, want a trailing slash", c.DiscordAPIBase)
	}
	if c.OllamaHost.String() != "http://gpu-box:11434" {
		t.Errorf("OLLAMA_HOST = %q", c.OllamaHost)
	}
	if c.ReminderModel != "llama3.2" || c.WeatherNotifyModel != "llama3.2" {
		t.Errorf("model fallbacks: reminder %q weather %q", c.ReminderModel, c.WeatherNotifyModel)
	}
	if c.UserRateLimit != 3 || c.UserRateWindow != 30*time.Second {
		t.Errorf("USER_RATE_LIMIT = %d/%s", c.UserRateLimit, c.UserRateWindow)
	}
	if c.Location.String() != "Asia/Tokyo" {
		t.Errorf("TIMEZONE = %s", c.Location)
	}
	if got := strings.Join(c.FetchAllowlist, ","); got != "wiki.internal,10.0.0.0/8,intranet:8443" {
		t.Errorf("FETCH_ALLOWLIST = %s", got)
	}
	if !strings.Contains(string(c.MCPServers), "wiki") {
		t.Errorf("MCP_SERVERS from file = %s", c.MCPServers)
	}
	if !c.MetricsPublic {
		t.Error("METRICS_PUBLIC=true not read")
	}
	if c.LogFormat != "json" {
		t.Errorf("LOG_FORMAT = %q", c.LogFormat)
	}
}

func TestOllamaHostRules(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"127.0.0.1", "http://127.0.0.1:11434"},
		{"0.0.0.0", "http://127.0.0.1:11434"},
		{"example.com:8080", "http://example.com:8080"},
		{"http://example.com", "http://example.com:80"},
		{"https://example.com", "https://example.com:443"},
		{"https://example.com/ollama", "https://example.com:443/ollama"},
		{"[::1]:11434", "http://[::1]:11434"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			c, err := Parse(env(map[string]string{"OLLAMA_HOST": tc.in}))
			if err != nil {
				t.Fatal(err)
			}
			if c.OllamaHost.String() != tc.want {
				t.Errorf("got %s, want %s", c.OllamaHost, tc.want)
			}
		})
	}
}

func TestParseRejectsBadValuesNamingTheVariable(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"DISCORD_API_BASE", "discord.com"},
		{"DATABASE_URL", "postgres://u:p@host:notaport/db"},
		{"OLLAMA_HOST", "ftp://x"},
		{"LLM_CONCURRENCY", "0"},
		{"LLM_CONCURRENCY", "many"},
		{"USER_RATE_LIMIT", "lots"},
		{"USER_RATE_LIMIT", "5/fortnight"},
		{"CONTEXT_TOKEN_BUDGET", "-1"},
		{"MCP_SERVERS", "[not json"},
		{"MCP_SERVERS", "/no/such/file.json"},
		{"HTTP_ADDR", "8080"},
		{"METRICS_PUBLIC", "sometimes"},
		{"TIMEZONE", "Mars/Olympus"},
		{"FETCH_ALLOWLIST", "10.0.0.0/99"},
		{"SEARCH_BACKEND", "bing"},
		{"JMA_BASE_URL", "not a url"},
		{"WEATHER_AREA_CODE", "tokyo"},
		{"WEATHER_CRON", "every morning"},
		{"WEATHER_WEBHOOK_URL", "discord webhook"},
		{"WEATHER_CHANNEL_ID", "#general"},
		{"TIPS_CRON", "61 * * * *"},
		{"REMINDER_MAX_AHEAD_DAYS", "0"},
		{"REMINDER_MAX_PENDING", "x"},
		{"SCHEDULE_MAX_PER_SPACE", "0"},
		{"TOOL_TIMEOUT", "forever"},
		{"TOOL_TIMEOUT", "0s"},
		{"TOOL_TIMEOUT", "2h"},
		{"TURN_TIMEOUT", "-5m"},
		{"TURN_TIMEOUT", "500ms"},
		{"API_LOG_RETENTION", "30 days"},
		{"API_LOG_RETENTION", "10m"},
		{"CHANNEL_LOG_RETENTION", "90 days"},
		{"CHANNEL_LOG_RETENTION", "12h"},
		{"DIGEST_MIN_MESSAGES", "0"},
		{"DIGEST_MIN_MESSAGES", "few"},
		{"LOG_FORMAT", "xml"},
		{"TRUSTED_PROXIES", "10.0.0.0/33"},
		{"TRUSTED_PROXIES", "127.0.0.1,proxy.local"},
		{"ADMIN_PASSWORD", "hunter2hunt"},
		{"ADMIN_PASSWORD", strings.Repeat("長い", 13)},
		{"OPENAI_BASE_URL", "127.0.0.1:8080/v1"},
		{"OPENAI_BASE_URL", "ftp://gpu/v1"},
		{"OPENAI_API_KEY", "sk-without-a-server"},
		{"MODEL_CAPABILITIES", "qwen3-vl-8b"},
		{"MODEL_CAPABILITIES", "qwen3-vl-8b:eyes"},
		{"MODEL_CAPABILITIES", "qwen3-vl-8b:vision;qwen3-vl-8b:tools"},
		{"MODEL_CAPABILITIES", ":tools"},
		{"MODEL_CAPABILITIES", "qwen3:"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			_, err := Parse(env(map[string]string{tc.name: tc.value}))
			if err == nil {
				t.Fatal("accepted a bad value")
			}
			if !strings.Contains(err.Error(), tc.name+" ") {
				t.Errorf("error does not name %s: %v", tc.name, err)
			}
		})
	}
}

func TestTrustedProxies(t *testing.T) {
	c, err := Parse(env(map[string]string{"TRUSTED_PROXIES": " 127.0.0.1, 172.16.5.4/12 ,::1,"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.TrustedProxies); got != "[127.0.0.1/32 172.16.0.0/12 ::1/128]" {
		t.Errorf("TRUSTED_PROXIES = %s", got)
	}
	if c, err := Parse(env(nil)); err != nil || c.TrustedProxies != nil {
		t.Errorf("TRUSTED_PROXIES unset = %v, %v; want none", c.TrustedProxies, err)
	}
}

// TestAdminPasswordLength: ADMIN_PASSWORD needs 12 characters (not bytes:
// a Japanese passphrase counts its characters), bcrypt takes at most 72
// bytes, and the refusal never quotes the password.
func TestAdminPasswordLength(t *testing.T) {
	for _, tc := range []struct {
		name, pw string
		ok       bool
	}{
		{"11 characters", "hunter2hunt", false},
		{"12 characters", "hunter2hunte", true},
		{"12 Japanese characters", "吾輩は猫である名前はまだ無", true},
		{"72 bytes", strings.Repeat("a", 72), true},
		{"73 bytes", strings.Repeat("a", 73), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(env(map[string]string{"ADMIN_PASSWORD": tc.pw}))
			if tc.ok {
				if err != nil || c.AdminPassword != tc.pw {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "ADMIN_PASSWORD must be at") || strings.Contains(err.Error(), tc.pw) {
				t.Errorf("err = %v; want one naming ADMIN_PASSWORD and its limit, not quoting it", err)
			}
		})
	}
}

func TestParseRequiresBackendSettings(t *testing.T) {
	for backend, needs := range map[string]string{"searxng": "SEARXNG_URL", "tavily": "TAVILY_API_KEY"} {
		_, err := Parse(env(map[string]string{"SEARCH_BACKEND": backend}))
		if err == nil || !strings.Contains(err.Error(), needs) {
			t.Errorf("SEARCH_BACKEND=%s without %s: err = %v", backend, needs, err)
		}
	}
}

func TestChannelPostsNeedTheBot(t *testing.T) {
	_, err := Parse(env(map[string]string{"WEATHER_CHANNEL_ID": "123"}))
	if err == nil || !strings.Contains(err.Error(), "WEATHER_CHANNEL_ID needs DISCORD_TOKEN") {
		t.Errorf("channel without a bot: err = %v", err)
	}
	for _, e := range []map[string]string{
		{"WEATHER_CHANNEL_ID": "123", "DISCORD_TOKEN": "t"},
		{"TIPS_CHANNEL_ID": "123", "TIPS_WEBHOOK_URL": "https://discord.com/api/webhooks/1/x"},
	} {
		if _, err := Parse(env(e)); err != nil {
			t.Errorf("%v: %v", e, err)
		}
	}
}

func TestSpacesAndGuilds(t *testing.T) {
	c, err := Parse(env(map[string]string{"DISCORD_GUILDS": " 111, 222,111 ", "TIPS_SPACE": "333", "WEATHER_SPACE": "444"}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.DiscordGuilds, ",") != "111,222" || c.TipsSpace != "guild:333" || c.WeatherSpace != "guild:444" {
		t.Errorf("guilds %v, tips space %q, weather space %q", c.DiscordGuilds, c.TipsSpace, c.WeatherSpace)
	}
	if c, err := Parse(env(map[string]string{"TIPS_SPACE": "web"})); err != nil || c.TipsSpace != "web" {
		t.Errorf("TIPS_SPACE=web: %v", err)
	}
	for name, v := range map[string]string{"DISCORD_GUILDS": "111,abc", "TIPS_SPACE": "guild:1", "WEATHER_SPACE": "dm:1"} {
		if _, err := Parse(env(map[string]string{name: v})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: err = %v; want one naming it", name, v, err)
		}
	}
}

func TestToolTimeoutFitsTheTurn(t *testing.T) {
	_, err := Parse(env(map[string]string{"TOOL_TIMEOUT": "10m", "TURN_TIMEOUT": "5m"}))
	if err == nil || !strings.Contains(err.Error(), "TOOL_TIMEOUT") || !strings.Contains(err.Error(), "TURN_TIMEOUT") {
		t.Errorf("a tool timeout longer than the turn: err = %v", err)
	}
}

func TestParseReportsEveryBadVariable(t *testing.T) {
	_, err := Parse(env(map[string]string{"LLM_CONCURRENCY": "x", "TIMEZONE": "nowhere"}))
	if err == nil || !strings.Contains(err.Error(), "LLM_CONCURRENCY") || !strings.Contains(err.Error(), "TIMEZONE") {
		t.Fatalf("want both variables named, got %v", err)
	}
}

func TestSecretsNeverLogged(t *testing.T) {
	secrets := map[string]string{
		"DISCORD_TOKEN":       "MTIz.discord-token-secret",
		"DATABASE_URL":        "postgres://yorozu:db-password-secret@db:5432/yorozu",
		"ADMIN_PASSWORD":      "admin-password-secret",
		"SEARCH_BACKEND":      "tavily",
		"TAVILY_API_KEY":      "tvly-api-key-secret",
		"OPENAI_BASE_URL":     "https://openrouter.ai/api/v1",
		"WEATHER_WEBHOOK_URL": "https://discord.com/api/webhooks/1/webhook-token-secret",
		"TIPS_WEBHOOK_URL":    "https://discord.com/api/webhooks/2/tips-token-secret",
		"QUAKE_WEBHOOK_URL":   "https://discord.com/api/webhooks/3/quake-token-secret",
		"OPENAI_API_KEY":      "sk-openai-key-secret",
	}
	c, err := Parse(env(secrets))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "config", c)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("config", "config", c)
	for name, v := range secrets {
		if name == "SEARCH_BACKEND" || name == "OPENAI_BASE_URL" {
			continue
		}
		if strings.Contains(buf.String(), v) || strings.Contains(buf.String(), "secret") {
			t.Errorf("%s leaked into the log: %s", name, buf.String())
		}
	}
	if !strings.Contains(buf.String(), `"discord_token":"set"`) {
		t.Errorf("log should say the token is set: %s", buf.String())
	}

	// A bad secret must not be echoed in the error either.
	_, err = Parse(env(map[string]string{"DATABASE_URL": "postgres://u:hunter2-secret@h:badport/db"}))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("DATABASE_URL error leaks the password or is missing: %v", err)
	}
}

func TestURLSecretsAreMasked(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://user:hunter2@gpu:11434", "http://xxxxx@gpu:11434"},
		{"https://searx.example/?format=json&token=hunter2", "https://searx.example/?format=json&token=xxxxx"},
		{"https://searx.example/search?api_key=hunter2&q=x", "https://searx.example/search?api_key=xxxxx&q=x"},
		{"https://discord.com/api/webhooks/123/hunter2", "https://discord.com/api/webhooks/123/xxxxx"},
		{"https://example.com/page?q=tokyo", "https://example.com/page?q=tokyo"},
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	msg := `Post "http://admin:hunter2@gpu:11434/api/chat?key=hunter2": dial tcp: connection refused`
	if got := RedactURLs(msg); strings.Contains(got, "hunter2") || !strings.Contains(got, "gpu:11434/api/chat") {
		t.Errorf("RedactURLs(%q) = %q", msg, got)
	}
}

func TestURLCredentialsAreUsedButNotLogged(t *testing.T) {
	c, err := Parse(env(map[string]string{
		"OLLAMA_HOST":    "https://bot:ollama-pass-secret@gpu.example/ollama?key=ollama-key-secret",
		"SEARCH_BACKEND": "searxng",
		"SEARXNG_URL":    "https://searx:searx-pass-secret@searx.example/?token=searx-token-secret",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if pass, _ := c.OllamaHost.User.Password(); pass != "ollama-pass-secret" || c.OllamaHost.Host != "gpu.example:443" ||
		c.OllamaHost.Path != "/ollama" || c.OllamaHost.Query().Get("key") != "ollama-key-secret" {
		t.Errorf("OLLAMA_HOST parsed as %#v", c.OllamaHost)
	}
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("config", "config", c)
	if strings.Contains(buf.String(), "secret") || !strings.Contains(buf.String(), "gpu.example:443/ollama") {
		t.Errorf("log: %s", buf.String())
	}
	_, err = Parse(env(map[string]string{"OLLAMA_HOST": "http://u:hunter2@h:notaport"}))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad OLLAMA_HOST error leaks the password or is missing: %v", err)
	}
}

func TestOpenAICompatibleServer(t *testing.T) {
	c, err := Parse(env(map[string]string{
		"OPENAI_BASE_URL":    "http://gpu:8080/v1/",
		"OPENAI_API_KEY":     " sk-local ",
		"MODEL_CAPABILITIES": "qwen3-vl-8b:vision,tools; qwen/qwen3-8b:free:tools ;bge-m3:embedding;gemma:Tools,tools",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.OpenAI.BaseURL != "http://gpu:8080/v1" || c.OpenAI.APIKey != "sk-local" {
		t.Errorf("OpenAI = %+v", c.OpenAI)
	}
	want := map[string][]string{
		"qwen3-vl-8b":        {"vision", "tools"},
		"qwen/qwen3-8b:free": {"tools"},
		"bge-m3":             {"embedding"},
		"gemma":              {"tools"},
	}
	if !maps.EqualFunc(c.OpenAI.Capabilities, want, slices.Equal) {
		t.Errorf("MODEL_CAPABILITIES = %v, want %v", c.OpenAI.Capabilities, want)
	}
	if !c.OpenAIOnly() {
		t.Error("OPENAI_BASE_URL without OLLAMA_HOST should run on the OpenAI-compatible server alone")
	}

	both, err := Parse(env(map[string]string{"OPENAI_BASE_URL": "http://gpu:8080/v1", "OLLAMA_HOST": "127.0.0.1"}))
	if err != nil {
		t.Fatal(err)
	}
	if both.OpenAIOnly() {
		t.Error("with OLLAMA_HOST set too, Ollama stays in use")
	}
	none, err := Parse(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if none.OpenAIOnly() || none.OpenAI.BaseURL != "" {
		t.Errorf("defaults = %+v", none.OpenAI)
	}
}

func TestModelCapabilitiesErrorsNameTheEntry(t *testing.T) {
	_, err := Parse(env(map[string]string{"MODEL_CAPABILITIES": "ok-model:tools;qwen3-vl:vision,sight"}))
	if err == nil || !strings.Contains(err.Error(), `"qwen3-vl:vision,sight"`) || !strings.Contains(err.Error(), `"sight"`) {
		t.Errorf("err = %v, want the entry and the unknown capability named", err)
	}
}
