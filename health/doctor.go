package health

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/scheduler"
	"github.com/yorozu-bot/yorozu/tools/browse"
	"github.com/yorozu-bot/yorozu/tools/fetch"
	"github.com/yorozu-bot/yorozu/tools/mcp"
	"github.com/yorozu-bot/yorozu/weather"
	"github.com/yorozu-bot/yorozu/web"
)

// DoctorSummary is what `yorozu doctor -h` says it does.
const DoctorSummary = "check the setup and print a checklist: the settings, DATA_DIR, the database,\n" +
	"Discord, the model server (Ollama or OpenAI-compatible) and the models, the search backend, JMA, where the scheduled\n" +
	"posts go, MCP_SERVERS. ✅ fine, ⚠️ worked around, ❌ to fix (the fix follows).\n" +
	"It changes nothing and posts nothing; the exit status is 1 when something is ❌"

// doctorTimeout bounds each check that goes over the network.
const doctorTimeout = 30 * time.Second

// checklist prints the findings of `yorozu doctor` as they come.
type checklist struct {
	w            io.Writer
	fails, warns int
}

func (c *checklist) add(f finding) {
	if f.quiet {
		return
	}
	switch f.level {
	case levelFail:
		c.fails++
	case levelWarn:
		c.warns++
	}
	fmt.Fprintf(c.w, "%s %s\n", f.level.symbol(), oneLine(config.RedactURLs(f.message)))
	if f.level != levelOK && f.fix != "" {
		fmt.Fprintf(c.w, "   → %s\n", oneLine(config.RedactURLs(f.fix)))
	}
}

// finish prints the tally; the error says how many problems there are.
func (c *checklist) finish() error {
	fmt.Fprintln(c.w)
	if c.fails == 0 && c.warns == 0 {
		fmt.Fprintln(c.w, "すべて問題ありません / everything is fine")
		return nil
	}
	fmt.Fprintf(c.w, "直すもの %d 件、注意 %d 件 / %d to fix, %d warning(s)\n", c.fails, c.warns, c.fails, c.warns)
	if c.fails > 0 {
		return fmt.Errorf("doctor: %d problem(s) to fix, see the ❌ lines", c.fails)
	}
	return nil
}

// DoctorOptions are what `yorozu doctor` reads and where it writes.
type DoctorOptions struct {
	Getenv  func(string) string
	Stdout  io.Writer
	Version string // yorozu's, for the User-Agent and MCP's handshake
	// Settings are the admin page's settings of a configuration.
	Settings func(cfg *config.Config) []web.SettingDef
	// ModelPool makes the pool of the configured model servers, as serve
	// does. Required.
	// Default: every server is an Ollama (llm.NewClient).
	ModelPool func(servers []config.ModelServer, o llm.PoolOptions) (*llm.Pool, error)
}

// Doctor runs every check serve depends on and prints the checklist. It
// applies no migration, starts no embedded database, registers no command
// and posts nothing: it only reads and connects. The error says how many
// problems there are to fix.
func Doctor(ctx context.Context, o DoctorOptions) error {
	getenv, stdout, version := o.Getenv, o.Stdout, o.Version
	c := &checklist{w: stdout}
	fmt.Fprintln(stdout, "yorozu doctor: 設定と接続を確かめます（何も変更せず、何も投稿しません） / checking the setup (nothing is changed or posted)")
	fmt.Fprintln(stdout)
	cfg, err := config.Parse(getenv)
	if err != nil {
		c.add(finding{level: levelFail, message: "設定が正しくありません / the configuration is not valid: " + strings.Join(strings.Fields(err.Error()), " "),
			fix: "名前の出ている環境変数を直してください（docs/ja/settings.md） / fix the variable it names (docs/ja/settings.md)"})
		return c.finish()
	}
	c.add(finding{message: "環境変数の設定は正しく読めます / the settings in the environment are valid"})
	c.add(checkDataDir(cfg.DataDir))

	defs := o.Settings(cfg)
	get := EnvSettings(defs)
	pool, settings := doctorDatabase(ctx, c, cfg, defs)
	if pool != nil {
		defer pool.Close()
	}
	if settings != nil {
		get = settings.Get
	}
	doctorDiscord(ctx, c, cfg)
	for _, f := range doctorModelServers(ctx, cfg, o.ModelPool, modelsInForce(get, cfg.EmbedModel)) {
		c.add(f)
	}
	c.add(doctorSearch(ctx, get, version))
	c.add(doctorJMA(ctx, cfg))
	for _, f := range doctorPosts(ctx, cfg, get) {
		c.add(f)
	}
	for _, f := range doctorDisaster(ctx, cfg) {
		c.add(f)
	}
	for _, f := range doctorMCP(ctx, cfg, version) {
		c.add(f)
	}
	return c.finish()
}

// EnvSettings is a setting in force by its admin page key, as the
// environment gives it (used when the page's settings cannot be read).
func EnvSettings(defs []web.SettingDef) func(string) string {
	values := map[string]string{}
	for _, d := range defs {
		values[d.Key] = d.Default
	}
	return func(key string) string { return values[key] }
}

// doctorDatabase connects to DATABASE_URL and compares the migrations
// applied with those built in; the admin page's settings it holds are
// returned, to check the values in force. Without DATABASE_URL it says what
// serve would do and returns nothing: starting the embedded database would
// create it, and it may be running under serve right now.
func doctorDatabase(ctx context.Context, c *checklist, cfg *config.Config, defs []web.SettingDef) (*pgxpool.Pool, *web.Settings) {
	if cfg.DatabaseURL == "" {
		desc, err := db.DescribeEmbedded(cfg.DataDir)
		switch {
		case errors.Is(err, db.ErrEmbeddedAsRoot):
			msg, fix, _ := strings.Cut(err.Error(), " → ")
			c.add(finding{level: levelFail, message: msg, fix: fix})
		case err != nil:
			c.add(finding{level: levelFail, message: "埋め込み PostgreSQL を使えません / embedded PostgreSQL cannot be used: " + err.Error(),
				fix: "DATABASE_URL に PostgreSQL を設定してください / set DATABASE_URL to a PostgreSQL server"})
		default:
			c.add(finding{message: "DATABASE_URL が未設定なので、serve は埋め込み PostgreSQL を使います / DATABASE_URL is unset: serve " + desc +
				" (doctor does not start it; serve applies the migrations at start)"})
		}
		return nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	pool, err := db.Open(cctx, cfg.DatabaseURL)
	if err != nil {
		c.add(finding{level: levelFail, message: "データベースに接続できません / cannot connect to the database: " + err.Error(),
			fix: "PostgreSQL が動いているか、DATABASE_URL（ホスト、ポート、ユーザー、パスワード、データベース名）を確認してください / " +
				"check that PostgreSQL runs and DATABASE_URL (host, port, user, password, database)"})
		return nil, nil
	}
	var server string
	if err := pool.QueryRow(cctx, "SHOW server_version").Scan(&server); err != nil {
		pool.Close()
		c.add(finding{level: levelFail, message: "データベースに問い合わせできません / the database does not answer: " + err.Error()})
		return nil, nil
	}
	c.add(finding{message: fmt.Sprintf("データベースに接続できます / the database answers (PostgreSQL %s)", server)})
	applied, pending, err := db.MigrationStatus(cctx, pool)
	var queue string
	if err == nil {
		queue, err = scheduler.MigrationsPending(cctx, pool)
	}
	switch {
	case err != nil:
		c.add(finding{level: levelFail, message: "マイグレーションの状態を読めません / cannot read the migration status: " + err.Error()})
		return pool, nil
	case pending > 0 || queue != "":
		var what []string
		if pending > 0 {
			what = append(what, fmt.Sprintf("%d of yorozu's", pending))
		}
		if queue != "" {
			what = append(what, "the job queue's: "+queue)
		}
		c.add(finding{level: levelWarn, message: "適用されていないマイグレーションがあります / migrations not applied yet: " + strings.Join(what, "; "),
			fix: "yorozu serve が起動時に適用します。今すぐなら yorozu migrate / yorozu serve applies them at start; yorozu migrate applies them now"})
		return pool, nil
	}
	c.add(finding{message: fmt.Sprintf("マイグレーションは最新です / the migrations are current (%d of yorozu's, and the job queue's)", applied)})
	settings, err := web.NewSettings(cctx, pool, defs)
	if err != nil {
		c.add(finding{level: levelWarn, message: "管理ページの設定を読めません（環境変数の値で確かめます） / cannot read the admin page's settings (checking the environment's values): " + err.Error()})
		return pool, nil
	}
	return pool, settings
}

// doctorDiscord connects to the gateway once, as the bot would, and closes.
func doctorDiscord(ctx context.Context, c *checklist, cfg *config.Config) {
	if cfg.DiscordToken == "" {
		c.add(finding{level: levelWarn, message: "DISCORD_TOKEN が未設定なので Discord にはつなぎません / DISCORD_TOKEN is unset: the Discord adapter is off (the admin page and the jobs still run)",
			fix: "Discord で使うには DISCORD_TOKEN にボットのトークンを設定してください / set DISCORD_TOKEN to the bot's token to use yorozu on Discord"})
		return
	}
	cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	ds, err := bot.Diagnose(cctx, discordOptions(cfg))
	if err != nil {
		c.add(finding{level: levelFail, message: "Discord を確かめられません / cannot check Discord: " + err.Error()})
		return
	}
	for _, d := range ds {
		c.add(fromDiagnosis("discord", "Discord", levelFail, d))
	}
	if len(ds) == 0 {
		c.add(finding{message: "Discord はトークンとインテントを受け付け、ボットはサーバーに参加しています / Discord accepts the token and the intents, and the bot is in a server"})
	}
}

// discordOptions are the options of a Bot that only looks (doctor's).
func discordOptions(cfg *config.Config) bot.Options {
	return bot.Options{Token: cfg.DiscordToken, APIBase: cfg.DiscordAPIBase, Guilds: cfg.DiscordGuilds,
		Logger: slog.New(slog.DiscardHandler)}
}

// doctorSearch runs one query on the search backend in force, as the
// web_search tool would (the backend is the operator's choice, reached with
// an ordinary client, as in serve).
func doctorSearch(ctx context.Context, get func(string) string, version string) finding {
	backend := get("search_backend")
	f := finding{group: "search", label: "search " + backend}
	searcher, err := browse.NewSearcher(browse.SearchOptions{Backend: backend, BaseURL: get("searxng_url"), APIKey: get("tavily_api_key"), UserAgent: fetch.UserAgent(version)})
	if err == nil {
		cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
		var res []browse.Result
		res, err = searcher.Search(cctx, "yorozu Discord bot", 3)
		cancel()
		if err == nil && len(res) == 0 {
			f.level = levelWarn
			f.message = fmt.Sprintf("検索（%s）の結果が 0 件でした / the search backend %s found nothing for a test query", backend, backend)
			f.fix = "web_search は使えますが結果がないかもしれません。別の SEARCH_BACKEND も試してください / web_search works but may find nothing: try another SEARCH_BACKEND"
			return f
		}
		if err == nil {
			f.message = fmt.Sprintf("検索（%s）が答えます / the search backend %s answers (a test query found %d)", backend, backend, len(res))
			return f
		}
	}
	f.level = levelFail
	f.message = fmt.Sprintf("検索（%s）が使えません / the search backend %s fails: %v", backend, backend, err)
	switch backend {
	case "searxng":
		f.fix = "SEARXNG_URL を確認し、SearXNG の settings.yml の search.formats に json を加えてください / check SEARXNG_URL, and enable the json format (search.formats) in SearXNG's settings.yml"
	case "tavily":
		f.fix = "TAVILY_API_KEY を確認してください / check TAVILY_API_KEY"
	default:
		f.fix = "ネットワークとプロキシを確認してください。DuckDuckGo が制限していることもあります: 時間をおくか、SEARCH_BACKEND を searxng か tavily に / " +
			"check the network and a proxy; DuckDuckGo may also be limiting requests: try later, or set SEARCH_BACKEND to searxng or tavily"
	}
	return f
}

// doctorJMA reads the forecast of WEATHER_AREA_CODE, as the weather
// answers and the weather post do.
func doctorJMA(ctx context.Context, cfg *config.Config) finding {
	f := finding{group: "jma", label: "JMA " + cfg.WeatherAreaCode}
	cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	fc, err := weather.NewClient(weather.ClientOptions{BaseURL: cfg.JMABaseURL, FailureTTL: -1}).Forecast(cctx, cfg.WeatherAreaCode)
	if err != nil {
		f.level = levelFail
		f.message = fmt.Sprintf("気象庁の予報（WEATHER_AREA_CODE %s）を読めません / cannot read JMA's forecast for WEATHER_AREA_CODE %s: %v", cfg.WeatherAreaCode, cfg.WeatherAreaCode, err)
		f.fix = "JMA_BASE_URL と WEATHER_AREA_CODE（気象庁の府県予報区のコード: 東京 130000、大阪 270000 など）を確認してください / " +
			"check JMA_BASE_URL and WEATHER_AREA_CODE (a JMA office code: Tokyo 130000, Osaka 270000, …)"
		return f
	}
	f.message = fmt.Sprintf("気象庁の予報を読めます: %s（%s） / JMA's forecast for %s (%s) can be read", fc.Area, cfg.WeatherAreaCode, fc.Area, cfg.WeatherAreaCode)
	return f
}

// doctorPosts checks where each scheduled post goes: the webhook exists, or
// the bot may post in the channel. Nothing is posted.
func doctorPosts(ctx context.Context, cfg *config.Config, get func(string) string) []finding {
	var discord *bot.Bot
	defer func() {
		if discord != nil {
			discord.Stop()
		}
	}()
	var out []finding
	for _, p := range []struct {
		ja, en                 string
		webhookKey, channelKey string
		webhookVar, channelVar string
		need                   int64
	}{
		{"天気の投稿", "the weather post", "weather_webhook_url", "weather_channel_id", "WEATHER_WEBHOOK_URL", "WEATHER_CHANNEL_ID", bot.PostPermissions},
		{"Tips の投稿", "the tips post", "tips_webhook_url", "tips_channel_id", "TIPS_WEBHOOK_URL", "TIPS_CHANNEL_ID",
			discordgo.PermissionViewChannel | discordgo.PermissionSendMessages},
	} {
		f := finding{group: "posts", label: p.en}
		webhook, channel := get(p.webhookKey), get(p.channelKey)
		cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
		switch {
		case webhook != "":
			if d := bot.CheckWebhook(cctx, nil, webhook); d != nil {
				f = fromDiagnosis("posts", p.en, levelFail, *d)
				f.message = fmt.Sprintf("%s (%s): %s", p.en, p.webhookVar, f.message)
			} else {
				f.message = fmt.Sprintf("%sの Webhook があります / %s's webhook (%s) exists", p.ja, p.en, p.webhookVar)
			}
		case channel != "" && cfg.DiscordToken == "":
			f.level, f.code = levelFail, "post_without_discord"
			f.message = fmt.Sprintf("%s を設定していますが DISCORD_TOKEN がありません / %s is set but DISCORD_TOKEN is not: %s cannot go out", p.channelVar, p.channelVar, p.en)
			f.fix = fmt.Sprintf("DISCORD_TOKEN を設定するか、%s を使ってください / set DISCORD_TOKEN, or use %s", p.webhookVar, p.webhookVar)
		case channel != "":
			if discord == nil {
				opts := discordOptions(cfg)
				opts.Responder = nobody{}
				b, err := bot.New(opts)
				if err != nil {
					cancel()
					return append(out, finding{level: levelFail, message: "Discord を確かめられません / cannot check Discord: " + err.Error()})
				}
				discord = b
			}
			if d := discord.CheckChannel(cctx, channel, p.need); d != nil {
				f = fromDiagnosis("posts", p.en, levelFail, *d)
				f.message = fmt.Sprintf("%s (%s): %s", p.en, p.channelVar, f.message)
			} else {
				f.message = fmt.Sprintf("%sのチャンネル %s にボットが投稿できます / the bot may post in channel %s, for %s (%s)", p.ja, channel, channel, p.en, bot.PermissionNames(p.need))
			}
		default:
			f.message = fmt.Sprintf("%sはオフです（投稿先なし） / %s is off (no %s or %s)", p.ja, p.en, p.webhookVar, p.channelVar)
		}
		cancel()
		out = append(out, f)
	}
	return out
}

// nobody answers no one: doctor's bot only looks at channels.
type nobody struct{}

func (nobody) Respond(context.Context, chat.Request, func(llm.Event) error) error { return nil }

// doctorMCP starts each MCP server, lists its tools and stops it again.
func doctorMCP(ctx context.Context, cfg *config.Config, version string) []finding {
	if len(cfg.MCPServers) == 0 {
		return []finding{{message: "MCP_SERVERS: なし / none configured"}}
	}
	servers, err := mcp.ParseServers(string(cfg.MCPServers), os.ReadFile)
	if err != nil {
		return []finding{{level: levelFail, message: "MCP_SERVERS が正しくありません / MCP_SERVERS is not valid: " + err.Error(),
			fix: "docs/ja/settings.md の MCP_SERVERS の例のとおりに書いてください / write it as the MCP_SERVERS example in docs/ja/settings.md"}}
	}
	var out []finding
	for _, s := range servers {
		cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
		names, err := mcp.Probe(cctx, s, mcp.Options{Version: version})
		cancel()
		f := finding{group: "mcp", label: "MCP " + s.Name}
		switch {
		case err != nil:
			f.level = levelFail
			f.message = fmt.Sprintf("MCP サーバー %s が起動しません / MCP server %s does not start: %v", s.Name, s.Name, err)
			f.fix = "MCP_SERVERS の command（または url）を確認し、手で起動できるか試してください / check its command (or url) in MCP_SERVERS and try starting it by hand"
		case len(names) == 0:
			f.level = levelWarn
			f.message = fmt.Sprintf("MCP サーバー %s はツールを出していません / MCP server %s offers no tools", s.Name, s.Name)
			f.fix = "サーバーの設定を確認してください / check the server's own settings"
		default:
			f.message = fmt.Sprintf("MCP サーバー %s が起動し、ツールが %d 個使えます / MCP server %s starts and offers %d tool(s): %s",
				s.Name, len(names), s.Name, len(names), strings.Join(names, ", "))
		}
		out = append(out, f)
	}
	return out
}

// doctorModelServers checks the model servers as serve's start-up checks
// do: the one Ollama by its version, several servers one by one; then the
// models in force on any of them.
func doctorModelServers(ctx context.Context, cfg *config.Config, newPool func([]config.ModelServer, llm.PoolOptions) (*llm.Pool, error), models []modelUse) []finding {
	pool, err := newPool(cfg.ModelServers, llm.PoolOptions{CallTimeout: ollamaCallTimeout})
	if err != nil {
		return []finding{{group: "ollama", level: levelFail, code: "model_server_invalid",
			message: "モデルサーバーを使えません / a model server cannot be used: " + err.Error(),
			fix:     "MODEL_SERVERS を確認してください / check MODEL_SERVERS"}}
	}
	checker := ollamaChecker{
		host:         config.RedactURL(cfg.ModelServers[0].URL.String()),
		version:      pool.Version,
		capabilities: llm.New(llm.Options{Pool: pool}).Capabilities,
	}
	if cfg.OpenAIOnly() {
		checker.host, checker.openAI = config.RedactURL(cfg.OpenAI.BaseURL), true
	}
	checker.probeUnlessOneOllama(pool)
	return checker.check(ctx, models)
}
