package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/robfig/cron/v3"
)

// Config is everything yorozu reads from its environment, parsed and
// validated once at start and passed down. Field docs give each default.
type Config struct {
	// DiscordToken is the bot token (DISCORD_TOKEN). Empty turns the Discord
	// adapter off; the web page and the jobs still run. Secret.
	DiscordToken string
	// DiscordAPIBase is the origin of a Discord-compatible API
	// (DISCORD_API_BASE, default https://discord.com/), always ending in "/".
	DiscordAPIBase string

	// DatabaseURL is the Postgres connection string (DATABASE_URL). Empty
	// means embedded Postgres under DataDir. Secret (it may hold a password).
	DatabaseURL string
	// DataDir holds the embedded database and the knowledge base (DATA_DIR,
	// default ./data).
	DataDir string

	// OllamaHost is the Ollama server (OLLAMA_HOST, default
	// http://127.0.0.1:11434), read by the same rules as the ollama CLI.
	OllamaHost *url.URL
	// OllamaHostSet is whether OLLAMA_HOST was set at all (rather than
	// defaulted): with OPENAI_BASE_URL alone, Ollama is not used.
	OllamaHostSet bool
	// OpenAI is the OpenAI-compatible server (OPENAI_BASE_URL,
	// OPENAI_API_KEY, MODEL_CAPABILITIES).
	OpenAI OpenAIConfig
	// DefaultModel is the chat model (DEFAULT_MODEL, default qwen3:4b).
	DefaultModel string
	// ReminderModel answers reminder requests (REMINDER_MODEL, default
	// WeatherNotifyModel).
	ReminderModel string
	// WeatherNotifyModel writes the weather comment (WEATHER_NOTIFY_MODEL,
	// default DefaultModel).
	WeatherNotifyModel string
	// EmbedModel embeds the knowledge base (EMBED_MODEL, default bge-m3).
	EmbedModel string
	// LLMConcurrency bounds LLM requests in flight (LLM_CONCURRENCY, default 1).
	LLMConcurrency int
	// ModelServers are the model servers of the pool (MODEL_SERVERS, syntax
	// in servers.go). Unset: the one Ollama at OllamaHost with
	// LLMConcurrency slots. Never empty.
	ModelServers []ModelServer
	// UserRateLimit is how many turns one user may start per UserRateWindow
	// (USER_RATE_LIMIT, default "6/min"; "0" turns the limit off).
	UserRateLimit  int
	UserRateWindow time.Duration
	// ContextTokenBudget is the prompt budget of the context layers
	// (CONTEXT_TOKEN_BUDGET, default 6000).
	ContextTokenBudget int
	// MCPServers is the JSON list of MCP servers (MCP_SERVERS: the list
	// itself, or the path of a file holding it). Empty means none.
	MCPServers json.RawMessage

	// HTTPAddr is where the admin page, /healthz, /readyz and /metrics
	// listen (HTTP_ADDR, default 127.0.0.1:8080).
	HTTPAddr string
	// AdminPassword is the admin login (ADMIN_PASSWORD), at least
	// MinAdminPasswordLength characters and at most 72 bytes. Empty means a
	// random one is generated at the first start and written to
	// DataDir/admin-password. Secret.
	AdminPassword string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For and
	// X-Forwarded-Proto are believed (TRUSTED_PROXIES, comma-separated CIDRs
	// or addresses; default none: every peer is the client itself).
	TrustedProxies []netip.Prefix
	// MetricsPublic serves /metrics without the admin login (METRICS_PUBLIC,
	// default false), for a Prometheus that cannot log in.
	MetricsPublic bool
	// Location is the time zone users and the model see (TIMEZONE, default
	// the system's local zone). The database stores UTC.
	Location *time.Location

	// FetchAllowlist lists hosts ("host" or "host:port") and networks (CIDR)
	// that tools may fetch although they are private (FETCH_ALLOWLIST).
	FetchAllowlist []string
	// SearchBackend is duckduckgo, searxng or tavily (SEARCH_BACKEND,
	// default duckduckgo).
	SearchBackend string
	// SearxngURL is the SearXNG instance, required for searxng (SEARXNG_URL).
	SearxngURL string
	// TavilyAPIKey is required for tavily (TAVILY_API_KEY). Secret.
	TavilyAPIKey string

	// JMABaseURL is the JMA forecast API root (JMA_BASE_URL, default
	// https://www.jma.go.jp/bosai/), always ending in "/".
	JMABaseURL string
	// WeatherAreaCode is the JMA office code (WEATHER_AREA_CODE, default 130000).
	WeatherAreaCode string
	// WeatherCron schedules the weather post (WEATHER_CRON, default
	// "30 6 * * *", in Location).
	WeatherCron string
	// WeatherWebhookURL or WeatherChannelID is where the weather goes; both
	// empty turns the job off. The webhook URL is secret.
	WeatherWebhookURL string
	WeatherChannelID  string
	// TipsCron schedules tips (TIPS_CRON, default "0 */3 * * *").
	TipsCron string
	// TipsWebhookURL or TipsChannelID is where tips go; both empty turns the
	// job off. The webhook URL is secret.
	TipsWebhookURL string
	TipsChannelID  string

	// DiscordGuilds are the only servers served (DISCORD_GUILDS,
	// comma-separated ids); empty serves every server the bot is in.
	DiscordGuilds []string
	// TipsSpace is the space whose tips history (and model calls) the tips
	// posted through a webhook belong to (TIPS_SPACE: a server id or
	// "web"), as "guild:<id>" or "web". A bot message belongs to the server
	// of TIPS_CHANNEL_ID. Empty: the only server.
	TipsSpace string
	// WeatherSpace is the same for the weather post (WEATHER_SPACE): the
	// space its comment's model call is logged under.
	WeatherSpace string

	// ReminderMaxAheadDays is the furthest allowed reminder
	// (REMINDER_MAX_AHEAD_DAYS, default 365).
	ReminderMaxAheadDays int
	// ReminderMaxPending is how many pending reminders one user may have
	// (REMINDER_MAX_PENDING, default 50).
	ReminderMaxPending int
	// ScheduleMaxPerSpace is how many scheduled posts one server may have
	// (SCHEDULE_MAX_PER_SPACE, default 20).
	ScheduleMaxPerSpace int

	// ToolTimeout bounds one tool call, MCP tools included (TOOL_TIMEOUT,
	// default 60s).
	ToolTimeout time.Duration
	// TurnTimeout bounds one turn, from its start to the end of the answer
	// (TURN_TIMEOUT, default 5m).
	TurnTimeout time.Duration
	// APILogRetention is how long model call logs are kept
	// (API_LOG_RETENTION, default 30d).
	APILogRetention time.Duration
	// MessageRetention is how long archived messages are kept
	// (MESSAGE_RETENTION, default off: 0, for ever).
	MessageRetention time.Duration
	// ChannelLogRetention is how long the channel log (/channel log on)
	// keeps a message (CHANNEL_LOG_RETENTION, default 90d, at least 1d).
	ChannelLogRetention time.Duration
	// DigestMinMessages is how many messages members must have written
	// since a digest's previous occurrence for it to post; a quieter
	// period posts nothing (DIGEST_MIN_MESSAGES, default 5, 1 to 10000).
	DigestMinMessages int
	// LogFormat is how log lines are written (LOG_FORMAT): "text" (the
	// default, logfmt-like) or "json" (one JSON object a line).
	LogFormat string

	// Disaster is JMA's earthquake, tsunami and warning posts (QUAKE_*).
	Disaster DisasterConfig
	// Discord is the bot's behaviour in Discord (DISCORD_REACTIONS).
	Discord DiscordConfig
}

// variables lists, sorted, every environment variable Parse reads. The list
// is taken from the parser itself, so it cannot drift from what yorozu reads;
// for that Parse reads every variable on every call, whatever the others say
// (a condition applies to a value, never to whether it is read). The
// settings table (docs/ja/settings.md) is held to it by a test.
func variables() []string {
	read := map[string]bool{}
	_, _ = Parse(func(name string) string {
		read[name] = true
		return ""
	})
	names := make([]string, 0, len(read))
	for name := range read {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Parse reads the configuration from getenv (os.Getenv in production, a map
// in tests) and validates it. Every problem is reported, each naming its
// variable.
func Parse(getenv func(string) string) (*Config, error) {
	p := parser{getenv: getenv}
	c := &Config{
		DiscordToken:   strings.TrimSpace(getenv("DISCORD_TOKEN")),
		DiscordAPIBase: p.baseURL("DISCORD_API_BASE", "https://discord.com/"),
		DatabaseURL:    p.databaseURL("DATABASE_URL"),
		DataDir:        p.str("DATA_DIR", "./data"),

		OllamaHost:         p.ollamaHost("OLLAMA_HOST"),
		DefaultModel:       p.str("DEFAULT_MODEL", "qwen3:4b"),
		EmbedModel:         p.str("EMBED_MODEL", "bge-m3"),
		LLMConcurrency:     p.intRange("LLM_CONCURRENCY", 1, 1, 64),
		ContextTokenBudget: p.intRange("CONTEXT_TOKEN_BUDGET", 6000, 500, 1_000_000),
		MCPServers:         p.mcpServers("MCP_SERVERS"),

		HTTPAddr:       p.hostPort("HTTP_ADDR", "127.0.0.1:8080"),
		AdminPassword:  p.adminPassword("ADMIN_PASSWORD"),
		TrustedProxies: p.prefixes("TRUSTED_PROXIES"),
		MetricsPublic:  p.boolean("METRICS_PUBLIC", false),
		Location:       p.location("TIMEZONE"),

		FetchAllowlist: p.allowlist("FETCH_ALLOWLIST"),
		SearchBackend:  p.oneOf("SEARCH_BACKEND", "duckduckgo", "duckduckgo", "searxng", "tavily"),
		SearxngURL:     p.optionalURL("SEARXNG_URL"),
		TavilyAPIKey:   strings.TrimSpace(getenv("TAVILY_API_KEY")),

		JMABaseURL:        p.baseURL("JMA_BASE_URL", "https://www.jma.go.jp/bosai/"),
		WeatherAreaCode:   p.areaCode("WEATHER_AREA_CODE", "130000"),
		WeatherCron:       p.cron("WEATHER_CRON", "30 6 * * *"),
		WeatherWebhookURL: p.optionalURL("WEATHER_WEBHOOK_URL"),
		WeatherChannelID:  p.snowflake("WEATHER_CHANNEL_ID"),
		TipsCron:          p.cron("TIPS_CRON", "0 */3 * * *"),
		TipsWebhookURL:    p.optionalURL("TIPS_WEBHOOK_URL"),
		TipsChannelID:     p.snowflake("TIPS_CHANNEL_ID"),
		DiscordGuilds:     p.snowflakes("DISCORD_GUILDS"),
		TipsSpace:         p.space("TIPS_SPACE"),
		WeatherSpace:      p.space("WEATHER_SPACE"),

		ReminderMaxAheadDays: p.intRange("REMINDER_MAX_AHEAD_DAYS", 365, 1, 3650),
		ReminderMaxPending:   p.intRange("REMINDER_MAX_PENDING", 50, 1, 100_000),
		ScheduleMaxPerSpace:  p.intRange("SCHEDULE_MAX_PER_SPACE", 20, 1, 1000),

		ToolTimeout:     p.duration("TOOL_TIMEOUT", 60*time.Second, 100*time.Millisecond, time.Hour),
		TurnTimeout:     p.duration("TURN_TIMEOUT", 5*time.Minute, time.Second, 24*time.Hour),
		APILogRetention: p.duration("API_LOG_RETENTION", 30*24*time.Hour, time.Hour, 100*365*24*time.Hour),

		MessageRetention:    p.retention("MESSAGE_RETENTION"),
		ChannelLogRetention: p.duration("CHANNEL_LOG_RETENTION", 90*24*time.Hour, 24*time.Hour, 100*365*24*time.Hour),
		DigestMinMessages:   p.intRange("DIGEST_MIN_MESSAGES", 5, 1, 10000),

		LogFormat: p.oneOf("LOG_FORMAT", "text", "text", "json"),
	}
	if c.ToolTimeout > c.TurnTimeout {
		p.fail("TOOL_TIMEOUT", "(%s) must not be longer than TURN_TIMEOUT (%s)", c.ToolTimeout, c.TurnTimeout)
	}
	c.WeatherNotifyModel = p.str("WEATHER_NOTIFY_MODEL", c.DefaultModel)
	c.ReminderModel = p.str("REMINDER_MODEL", c.WeatherNotifyModel)
	c.UserRateLimit, c.UserRateWindow = p.rate("USER_RATE_LIMIT", "6/min")
	c.Disaster = p.disaster(c.DiscordToken != "")
	c.Discord = p.discord()
	c.OllamaHostSet = strings.TrimSpace(getenv("OLLAMA_HOST")) != ""
	c.OpenAI = p.openAI()
	c.ModelServers = p.modelServers("MODEL_SERVERS", c.defaultServers())
	for i := range c.ModelServers {
		if c.ModelServers[i].Kind == KindOpenAI {
			c.ModelServers[i].Capabilities = c.OpenAI.Capabilities
		}
	}

	switch c.SearchBackend {
	case "searxng":
		if c.SearxngURL == "" {
			p.fail("SEARXNG_URL", "is required when SEARCH_BACKEND=searxng")
		}
	case "tavily":
		if c.TavilyAPIKey == "" {
			p.fail("TAVILY_API_KEY", "is required when SEARCH_BACKEND=tavily")
		}
	}
	for _, ch := range []struct{ name, id, webhook string }{
		{"WEATHER_CHANNEL_ID", c.WeatherChannelID, c.WeatherWebhookURL},
		{"TIPS_CHANNEL_ID", c.TipsChannelID, c.TipsWebhookURL},
	} {
		if ch.id != "" && ch.webhook == "" && c.DiscordToken == "" {
			p.fail(ch.name, "needs DISCORD_TOKEN to post as the bot (or set the matching webhook URL instead)")
		}
	}
	if err := errors.Join(p.errs...); err != nil {
		return nil, fmt.Errorf("invalid configuration:\n%w", err)
	}
	return c, nil
}

// LogValue lists the configuration for logs with every secret reduced to
// "set" or "unset".
func (c *Config) LogValue() slog.Value {
	secret := func(s string) string {
		if s == "" {
			return "unset"
		}
		return "set"
	}
	return slog.GroupValue(
		slog.String("discord_token", secret(c.DiscordToken)),
		slog.String("discord_api_base", c.DiscordAPIBase),
		slog.String("database_url", secret(c.DatabaseURL)),
		slog.String("data_dir", c.DataDir),
		slog.String("ollama_host", RedactURL(c.OllamaHost.String())),
		slog.String("openai_base_url", RedactURL(c.OpenAI.BaseURL)),
		slog.String("openai_api_key", secret(c.OpenAI.APIKey)),
		slog.Int("model_capabilities", len(c.OpenAI.Capabilities)),
		slog.String("default_model", c.DefaultModel),
		slog.String("reminder_model", c.ReminderModel),
		slog.String("weather_notify_model", c.WeatherNotifyModel),
		slog.String("embed_model", c.EmbedModel),
		slog.Int("llm_concurrency", c.LLMConcurrency),
		slog.String("model_servers", serversText(c.ModelServers)),
		slog.String("user_rate_limit", fmt.Sprintf("%d/%s", c.UserRateLimit, c.UserRateWindow)),
		slog.Int("context_token_budget", c.ContextTokenBudget),
		slog.Bool("mcp_servers", len(c.MCPServers) > 0),
		slog.String("http_addr", c.HTTPAddr),
		slog.String("admin_password", secret(c.AdminPassword)),
		slog.Any("trusted_proxies", c.TrustedProxies),
		slog.Bool("metrics_public", c.MetricsPublic),
		slog.String("timezone", c.Location.String()),
		slog.Any("fetch_allowlist", c.FetchAllowlist),
		slog.String("search_backend", c.SearchBackend),
		slog.String("searxng_url", RedactURL(c.SearxngURL)),
		slog.String("tavily_api_key", secret(c.TavilyAPIKey)),
		slog.String("jma_base_url", c.JMABaseURL),
		slog.String("weather_area_code", c.WeatherAreaCode),
		slog.String("weather_cron", c.WeatherCron),
		slog.String("weather_webhook_url", secret(c.WeatherWebhookURL)),
		slog.String("weather_channel_id", c.WeatherChannelID),
		slog.String("tips_cron", c.TipsCron),
		slog.String("tips_webhook_url", secret(c.TipsWebhookURL)),
		slog.String("tips_channel_id", c.TipsChannelID),
		slog.String("discord_guilds", strings.Join(c.DiscordGuilds, ",")),
		slog.String("tips_space", c.TipsSpace),
		slog.String("weather_space", c.WeatherSpace),
		slog.Int("reminder_max_ahead_days", c.ReminderMaxAheadDays),
		slog.Int("reminder_max_pending", c.ReminderMaxPending),
		slog.Int("schedule_max_per_space", c.ScheduleMaxPerSpace),
		slog.Duration("tool_timeout", c.ToolTimeout),
		slog.Duration("turn_timeout", c.TurnTimeout),
		slog.Duration("api_log_retention", c.APILogRetention),
		slog.Duration("message_retention", c.MessageRetention),
		slog.Duration("channel_log_retention", c.ChannelLogRetention),
		slog.Int("digest_min_messages", c.DigestMinMessages),
		slog.Any("disaster", c.Disaster),
		slog.String("log_format", c.LogFormat),
	)
}

// parser collects one error per bad variable so a user fixes them all at once.
type parser struct {
	getenv func(string) string
	errs   []error
}

func (p *parser) fail(name, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s %s", name, fmt.Sprintf(format, args...)))
}

// value returns the trimmed variable, or def when it is unset or blank.
func (p *parser) value(name, def string) string {
	if v := strings.TrimSpace(p.getenv(name)); v != "" {
		return v
	}
	return def
}

func (p *parser) str(name, def string) string { return p.value(name, def) }

func (p *parser) intRange(name string, def, lo, hi int) int {
	v := p.value(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		p.fail(name, "must be a whole number from %d to %d, got %q", lo, hi, v)
		return def
	}
	return n
}

func (p *parser) boolean(name string, def bool) bool {
	v := p.value(name, "")
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.fail(name, "must be true or false, got %q", v)
		return def
	}
	return b
}

func (p *parser) oneOf(name, def string, allowed ...string) string {
	v := strings.ToLower(p.value(name, def))
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	p.fail(name, "must be one of %s, got %q", strings.Join(allowed, ", "), v)
	return def
}

// baseURL parses an absolute http(s) URL and makes it end in "/", so paths
// can be appended to it.
func (p *parser) baseURL(name, def string) string {
	v := p.value(name, def)
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.fail(name, "must be an absolute http(s) URL, got %q", v)
		return def
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String()
}

func (p *parser) optionalURL(name string) string {
	v := p.value(name, "")
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The value may hold a token (webhooks), so it is not echoed.
		p.fail(name, "must be an absolute http(s) URL")
		return ""
	}
	return v
}

func (p *parser) databaseURL(name string) string {
	v := p.value(name, "")
	if v == "" {
		return ""
	}
	if _, err := pgconn.ParseConfig(v); err != nil {
		// pgconn's message may quote the password; say only what is wrong.
		p.fail(name, "is not a valid Postgres connection string (postgres://user:password@host:5432/db)")
		return ""
	}
	return v
}

// ollamaHost follows the ollama CLI: a missing scheme means http, a missing
// port means 11434 without a scheme and the scheme's own port with one.
// Userinfo (a proxy's basic auth) and a query are kept: the client sends them.
func (p *parser) ollamaHost(name string) *url.URL {
	v := p.value(name, "http://127.0.0.1:11434")
	u, err := parseOllamaHost(v)
	if err != nil {
		p.fail(name, "%v", err)
		return &url.URL{Scheme: "http", Host: "127.0.0.1:11434"}
	}
	return u
}

// parseOllamaHost reads an Ollama address by the ollama CLI's rules (see
// ollamaHost).
func parseOllamaHost(v string) (*url.URL, error) {
	defaultPort := "11434"
	scheme, rest, ok := strings.Cut(v, "://")
	switch {
	case !ok:
		scheme, rest = "http", v
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("must use http or https, got %q", RedactURL(v))
	}
	rest, query, _ := strings.Cut(rest, "?")
	hostport, path, _ := strings.Cut(rest, "/")
	var user *url.Userinfo
	if i := strings.LastIndex(hostport, "@"); i >= 0 {
		info := hostport[:i]
		hostport = hostport[i+1:]
		login, pass, hasPass := strings.Cut(info, ":")
		login, err1 := url.PathUnescape(login)
		pass, err2 := url.PathUnescape(pass)
		if err1 != nil || err2 != nil {
			return nil, errors.New("has invalid credentials (escape special characters as %XX)")
		}
		user = url.User(login)
		if hasPass {
			user = url.UserPassword(login, pass)
		}
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), defaultPort
		if host == "" {
			host = "127.0.0.1"
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("has an invalid port in %q", RedactURL(v))
	}
	if host == "0.0.0.0" || host == "::" {
		// A listen-everywhere address (as set for the server) is dialled locally.
		host = "127.0.0.1"
	}
	u := &url.URL{Scheme: scheme, User: user, Host: net.JoinHostPort(host, port), RawQuery: query}
	if path != "" {
		u.Path = "/" + path
	}
	return u, nil
}

func (p *parser) hostPort(name, def string) string {
	v := p.value(name, def)
	if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
		p.fail(name, "must be host:port (e.g. 127.0.0.1:8080), got %q", v)
		return def
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		p.fail(name, "has an invalid port in %q", v)
		return def
	}
	return v
}

// MinAdminPasswordLength is the shortest admin password accepted, from
// ADMIN_PASSWORD or `yorozu admin set-password`, in characters.
const MinAdminPasswordLength = 12

// maxAdminPasswordBytes is bcrypt's limit: it ignores what follows.
const maxAdminPasswordBytes = 72

// adminPassword reads the password as it is (spaces count), refusing one
// too short or too long for bcrypt; the error never quotes it.
func (p *parser) adminPassword(name string) string {
	v := p.getenv(name)
	if v == "" {
		return ""
	}
	if n := len([]rune(v)); n < MinAdminPasswordLength {
		p.fail(name, "must be at least %d characters long, got %d", MinAdminPasswordLength, n)
		return ""
	}
	if len(v) > maxAdminPasswordBytes {
		p.fail(name, "must be at most %d bytes long, got %d", maxAdminPasswordBytes, len(v))
		return ""
	}
	return v
}

// prefixes reads comma-separated CIDRs; a bare address is a network of
// that one address.
func (p *parser) prefixes(name string) []netip.Prefix {
	var out []netip.Prefix
	for _, item := range strings.Split(p.value(name, ""), ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		pfx, err := netip.ParsePrefix(item)
		if err != nil {
			addr, aerr := netip.ParseAddr(item)
			if aerr != nil {
				p.fail(name, "must be comma-separated CIDRs such as 172.16.0.0/12 or addresses, got %q", item)
				continue
			}
			pfx = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		out = append(out, pfx.Masked())
	}
	return out
}

func (p *parser) location(name string) *time.Location {
	v := p.value(name, "")
	if v == "" {
		return time.Local
	}
	loc, err := time.LoadLocation(v)
	if err != nil {
		p.fail(name, "must be an IANA time zone such as Asia/Tokyo, got %q", v)
		return time.Local
	}
	return loc
}

func (p *parser) allowlist(name string) []string {
	v := p.value(name, "")
	if v == "" {
		return nil
	}
	var out []string
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.Contains(item, "/") {
			if _, err := netip.ParsePrefix(item); err != nil {
				p.fail(name, "has an invalid CIDR %q", item)
				continue
			}
		} else if host, port, err := net.SplitHostPort(item); err == nil {
			if n, err := strconv.Atoi(port); host == "" || err != nil || n < 1 || n > 65535 {
				p.fail(name, "has an invalid host:port %q", item)
				continue
			}
		} else if strings.ContainsAny(item, " :/@") {
			p.fail(name, "entries must be host, host:port or CIDR, got %q", item)
			continue
		}
		out = append(out, strings.ToLower(item))
	}
	return out
}

var areaCodeRE = regexp.MustCompile(`^[0-9]{6}$`)

func (p *parser) areaCode(name, def string) string {
	v := p.value(name, def)
	if !areaCodeRE.MatchString(v) {
		p.fail(name, "must be a six-digit JMA office code such as 130000, got %q", v)
		return def
	}
	return v
}

var snowflakeRE = regexp.MustCompile(`^[0-9]{1,20}$`)

func (p *parser) snowflake(name string) string {
	v := p.value(name, "")
	if v != "" && !snowflakeRE.MatchString(v) {
		p.fail(name, "must be a Discord channel id (digits only), got %q", v)
		return ""
	}
	return v
}

// snowflakes reads comma-separated Discord ids, each once.
func (p *parser) snowflakes(name string) []string {
	var out []string
	for _, v := range strings.Split(p.value(name, ""), ",") {
		v = strings.TrimSpace(v)
		switch {
		case v == "" || slices.Contains(out, v):
		case !snowflakeRE.MatchString(v):
			p.fail(name, "must be comma-separated Discord server ids (digits only), got %q", v)
			return nil
		default:
			out = append(out, v)
		}
	}
	return out
}

// space reads a server id or "web" as a memory space key.
func (p *parser) space(name string) string {
	v := p.value(name, "")
	switch {
	case v == "":
		return ""
	case v == "web":
		return "web"
	case snowflakeRE.MatchString(v):
		return "guild:" + v
	}
	p.fail(name, `must be a Discord server id (digits only) or "web", got %q`, v)
	return ""
}

func (p *parser) cron(name, def string) string {
	v := p.value(name, def)
	if _, err := cron.ParseStandard(v); err != nil {
		p.fail(name, "is not a valid cron expression (minute hour day month weekday): %v", err)
		return def
	}
	return v
}

// rate parses "N/unit" where unit is s, sec, min, h, hour or a Go duration
// such as 30s; "0" turns the limit off.
func (p *parser) rate(name, def string) (int, time.Duration) {
	v := p.value(name, def)
	if v == "0" {
		return 0, time.Minute
	}
	count, unit, ok := strings.Cut(v, "/")
	n, err := strconv.Atoi(strings.TrimSpace(count))
	if !ok || err != nil || n < 0 {
		p.fail(name, "must look like 6/min, got %q", v)
		return 6, time.Minute
	}
	var window time.Duration
	switch strings.TrimSpace(unit) {
	case "s", "sec", "second":
		window = time.Second
	case "m", "min", "minute":
		window = time.Minute
	case "h", "hour":
		window = time.Hour
	default:
		window, err = time.ParseDuration(strings.TrimSpace(unit))
		if err != nil || window <= 0 {
			p.fail(name, "must look like 6/min, got %q", v)
			return 6, time.Minute
		}
	}
	return n, window
}

// duration parses a Go duration ("90s", "5m", "1h30m") or a number of days
// ("30d") between lo and hi.
func (p *parser) duration(name string, def, lo, hi time.Duration) time.Duration {
	v := p.value(name, "")
	if v == "" {
		return def
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(v, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(v)
	}
	if err != nil || d < lo || d > hi {
		p.fail(name, "must be a duration from %s to %s such as 90s, 5m or 30d, got %q", lo, hi, v)
		return def
	}
	return d
}

// mcpServers accepts the JSON list itself or the path of a file holding it.
func (p *parser) mcpServers(name string) json.RawMessage {
	v := p.value(name, "")
	if v == "" {
		return nil
	}
	raw := []byte(v)
	if !strings.HasPrefix(v, "[") {
		b, err := os.ReadFile(v)
		if err != nil {
			p.fail(name, "is neither a JSON list nor a readable file: %v", err)
			return nil
		}
		raw = b
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		p.fail(name, "must be a JSON list of servers: %v", err)
		return nil
	}
	return json.RawMessage(raw)
}

// ParseRate reads a USER_RATE_LIMIT value ("6/min", "3/30s", "0" for off),
// for values given elsewhere than the environment (the admin page).
func ParseRate(v string) (int, time.Duration, error) {
	p := parser{getenv: func(string) string { return v }}
	n, window := p.rate("USER_RATE_LIMIT", "6/min")
	if len(p.errs) > 0 {
		return 0, 0, p.errs[0]
	}
	return n, window, nil
}

// RateText writes a rate the way USER_RATE_LIMIT is written ("6/min"),
// the inverse of ParseRate.
func RateText(n int, window time.Duration) string {
	if n == 0 {
		return "0"
	}
	switch window {
	case time.Second:
		return fmt.Sprintf("%d/sec", n)
	case time.Minute:
		return fmt.Sprintf("%d/min", n)
	case time.Hour:
		return fmt.Sprintf("%d/hour", n)
	}
	return fmt.Sprintf("%d/%s", n, window)
}
