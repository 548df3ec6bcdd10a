package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/health"
	"github.com/yorozu-bot/yorozu/jma"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/openaicompat"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/memory/chanlog"
	"github.com/yorozu-bot/yorozu/memory/wordpool"
	"github.com/yorozu-bot/yorozu/metrics"
	"github.com/yorozu-bot/yorozu/scheduler"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/browse"
	"github.com/yorozu-bot/yorozu/tools/channellog"
	"github.com/yorozu-bot/yorozu/tools/fetch"
	"github.com/yorozu-bot/yorozu/tools/forecast"
	"github.com/yorozu-bot/yorozu/tools/knowledge"
	"github.com/yorozu-bot/yorozu/tools/mcp"
	"github.com/yorozu-bot/yorozu/tools/notes"
	"github.com/yorozu-bot/yorozu/tools/page"
	"github.com/yorozu-bot/yorozu/tools/reminder"
	"github.com/yorozu-bot/yorozu/weather"
	"github.com/yorozu-bot/yorozu/web"
)

// The pipeline sends the tools' JSON a ToolSet keeps instead of encoding
// them before every model call.
var _ llm.EncodedTools = (*tools.Registry)(nil)

// app is everything serve runs, wired once by build.
type app struct {
	cfg     *config.Config
	logger  *slog.Logger
	db      *database
	llm     *llm.Pipeline // its Pool is the model servers every part reaches
	tools   *tools.Registry
	mcp     *mcp.Servers
	memory  *memory.Memory
	words   *wordpool.Spaces // the topic words of each space
	router  *chat.Router
	sched   *scheduler.Scheduler
	weather *scheduler.Weather
	// forecasts answers weather questions and the weather_forecast tool
	// (one cache of JMA's answers for both).
	forecasts *weather.Client
	jma       *jma.Client         // the one client JMA is read with: forecasts and disaster information
	disaster  *scheduler.Disaster // nil unless QUAKE_WEBHOOK_URL or QUAKE_CHANNEL_ID is set
	tips      *scheduler.Tips
	bot       *bot.Bot // nil when DISCORD_TOKEN is unset
	web       *web.Server
	jobsUI    *scheduler.JobsUI // River's UI under /jobs/, built on its first request
	metrics   *metrics.Metrics
	chooser   *chat.Chooser         // the router with the persona and model in force; what both adapters call
	settings  *web.Settings         // the admin page's live settings; nil when they could not be read
	search    *browse.LiveSearcher  // the search backend in force
	limiter   *chat.RateLimiter     // per-user turns, shared by Discord and the admin page's chat
	health    *health.Checker       // DATA_DIR, Ollama and the models, checked in the background
	dbWatch   *db.Watch             // whether the database answers, said once per outage
	chanlog   *chanlog.Log          // the channel log's ingester (/channel log on)
	summary   *chat.Summarizer      // /summary, 「さっきの話まとめて」 and digests; nil without Discord
	buttons   commands.ButtonSigner // signs the buttons commands put under their replies

	handover *bot.Handover // who holds the Discord gateway; nil without the bot
	// fatal ends serve: something went wrong that a restart should fix.
	fatal chan error
}

// tokenSecretKey is where the continuation-token secret is kept.
const tokenSecretKey = "continuation_token_secret"

// buttonKeySetting is where the key that signs reminder buttons is kept.
const buttonKeySetting = "reminder_button_key"

// wordPoolSaveEvery is how often the word pools that changed are saved, so
// a restart seeds them from one row each (and once more at shutdown).
const wordPoolSaveEvery = time.Minute

// clock is the scheduler's: reminders are read, planned and delivered
// against it. Tests move it (River keeps the wall clock; they move its jobs).
var clock = time.Now

// build wires the parts. It connects to MCP servers but starts nothing that
// serves: start does that.
func build(ctx context.Context, cfg *config.Config, d *database, logger *slog.Logger) (*app, error) {
	a := &app{cfg: cfg, logger: logger, db: d, fatal: make(chan error, 1),
		limiter: chat.NewRateLimiter(cfg.UserRateLimit, cfg.UserRateWindow),
		dbWatch: db.NewWatch(d.pool, logger)}
	a.words = wordpool.NewSpaces(d.pool, 0, 0, logger)
	a.chanlog = chanlog.New(d.pool, chanlog.Options{Logger: logger})
	a.metrics = a.newMetrics()
	pool, err := modelPool(cfg.ModelServers, llm.PoolOptions{Leases: db.NewSlotLeases(d.pool), Logger: logger})
	if err != nil {
		return nil, err
	}
	a.llm = llm.New(llm.Options{
		Pool:        pool,
		Recorder:    chat.CallLog{DB: d.pool},
		Observe:     a.metrics.LLMCall,
		ToolTimeout: cfg.ToolTimeout,
		Logger:      logger,
		QueueWait:   a.metrics.QueueWait,
	})
	a.health = health.NewChecker(health.CheckerOptions{
		DataDir: cfg.DataDir, OllamaHost: cfg.OllamaHost.String(), OpenAIBaseURL: cfg.OpenAIAlone(),
		Version: pool.Version, Capabilities: a.llm.Capabilities, Pool: pool,
		Setting: a.setting, EmbedModel: cfg.EmbedModel, Logger: logger,
	})
	a.memory = memory.New(d.pool, memory.Options{
		Location:     cfg.Location,
		TokenBudget:  cfg.ContextTokenBudget,
		Ollama:       a.llm.BackgroundClient(),
		Model:        cfg.DefaultModel,
		EmbedModel:   cfg.EmbedModel,
		KnowledgeDir: filepath.Join(cfg.DataDir, "knowledge_base"),
		DefaultSpace: memory.OnlyGuildSpace(cfg.DiscordGuilds),
		Logger:       logger,
		ContextCache: memory.DefaultContextCache,
		// Memory's background workers tag each turn and feed the pool.
		Words: func(ctx context.Context, s memory.Space) memory.WordPool { return a.words.Pool(ctx, string(s)) },
		WordsReady: func(s memory.Space) memory.WordPool {
			if p := a.words.Ready(string(s)); p != nil {
				return p
			}
			return nil // not a nil *Pool in the interface
		},
	})

	// The router exists before its routes: the bot needs it now, the
	// routes need the scheduler, which needs the bot's Discord session.
	a.tools = tools.NewRegistry()
	conv := &chat.Conversation{Store: a.memory, Pipeline: a.llm, Model: cfg.DefaultModel, Tools: a.tools, Logger: logger}
	a.router = chat.NewRouter(conv)
	a.router.Documents, a.router.Logger = a.memory, logger
	a.chooser = &chat.Chooser{Router: a.router, Channels: d.pool, Logger: logger}
	a.router.TurnTimeout = cfg.TurnTimeout
	a.router.Use(a.metrics.Turns)

	// One key signs the buttons of reminders and of answers.
	buttonKey, err := db.EnsureSetting(ctx, d.pool, buttonKeySetting, page.NewSecret())
	if err != nil {
		return nil, err
	}
	a.buttons = commands.ButtonSigner{Key: buttonKey}
	var discord *bot.Bot
	if cfg.DiscordToken != "" {
		b, err := bot.New(bot.Options{
			Token:     cfg.DiscordToken,
			APIBase:   cfg.DiscordAPIBase,
			Logger:    logger,
			Limiter:   a.limiter,
			Responder: a.chooser,
			Replies:   a.memory,
			Chains:    a.memory,
			Claims:    bot.DatabaseClaims(d.pool),
			Guilds:    cfg.DiscordGuilds,
			Modes:     channelModes{d.pool},
			Reactions: cfg.Discord.Reactions,
			ButtonKey: buttonKey,
			Turns:     a.memory,
			Names:     bot.DatabaseNames(d.pool),
		})
		if err != nil {
			return nil, err
		}
		a.bot, discord = b, b
		a.summary = &chat.Summarizer{Source: &chat.LogSource{DB: d.pool, History: b, Threads: b, Readable: b}, Pipeline: a.llm, Model: cfg.DefaultModel,
			Budget: cfg.ContextTokenBudget, Location: cfg.Location, Logger: logger}
		b.FollowChannelLog(a.chanlog)
		a.handover = bot.NewHandover(b, d.pool, a.fail)
		a.instrumentDiscord(b)
	}

	schedOpts := scheduler.Options{
		Location:         cfg.Location,
		Now:              clock,
		Logger:           logger,
		Database:         a.dbWatch,
		MaxAhead:         time.Duration(cfg.ReminderMaxAheadDays) * 24 * time.Hour,
		MaxPending:       cfg.ReminderMaxPending,
		MaxPostsPerSpace: cfg.ScheduleMaxPerSpace,
		ButtonKey:        buttonKey,
		Post:             a.schedulePost,

		JobDone:      a.metrics.JobDone,
		ReminderDone: a.metrics.ReminderDone,
	}
	if discord != nil {
		schedOpts.Discord, schedOpts.Digests, schedOpts.DigestMinMessages = discord.Session(), a.summary, cfg.DigestMinMessages
	}
	sched, err := scheduler.New(d.pool, schedOpts)
	if err != nil {
		return nil, err
	}
	a.sched = sched
	a.jma = jma.NewClient(jma.ClientOptions{BaseURL: cfg.JMABaseURL, UserAgent: fetch.UserAgent(version)})
	if err := a.buildDisaster(); err != nil {
		return nil, err
	}

	if err := a.buildTools(ctx); err != nil {
		return nil, err
	}
	a.metrics.SetTools(a.tools.Names())
	if err := a.buildRoutes(conv); err != nil {
		return nil, err
	}
	a.buildWeb(ctx)
	return a, nil
}

// buildTools registers every tool the model may call.
func (a *app) buildTools(ctx context.Context) error {
	cfg := a.cfg
	fetcher, err := fetch.New(fetch.Options{Allowlist: cfg.FetchAllowlist, UserAgent: fetch.UserAgent(version)})
	if err != nil {
		return fmt.Errorf("FETCH_ALLOWLIST: %w", err)
	}
	searcher, err := a.newSearcher(cfg.SearchBackend, cfg.SearxngURL, cfg.TavilyAPIKey)
	if err != nil {
		return fmt.Errorf("SEARCH_BACKEND: %w", err)
	}
	a.search = &browse.LiveSearcher{}
	a.search.Set(searcher)
	secret, err := db.EnsureSetting(ctx, a.db.pool, tokenSecretKey, page.NewSecret())
	if err != nil {
		return err
	}
	signer := page.NewSigner(secret, time.Now)
	if err := browse.Register(a.tools, browse.Deps{
		Fetcher: fetcher, Searcher: a.search, Signer: signer,
		MaxResultChars: llm.MaxResultChars,
		Keeper:         chat.KeptDocs{Memory: a.memory, Logger: a.logger},
		Location:       cfg.Location,
	}); err != nil {
		return err
	}
	a.forecasts = weather.NewClient(weather.ClientOptions{JMA: a.jma})
	builtin := append(reminder.Tools(a.sched.Reminders()), notes.Tools(a.memory)...)
	builtin = append(builtin, chat.ProfileOfferTool(a.db.pool), chat.PollOfferTool(a.db.pool),
		chat.EventOfferTool(a.db.pool, chat.EventOfferDeps{Now: clock, LocationFor: a.sched.Reminders().LocationFor}))
	builtin = append(builtin, knowledge.Tool(a.memory, cfg.Location), forecast.Tool(a.forecasts, cfg.WeatherAreaCode, clock))
	builtin = append(builtin, channellog.Tool(channellog.Deps{DB: a.db.pool, Signer: signer, Location: cfg.Location}))
	for _, t := range builtin {
		if err := a.tools.Register(t); err != nil {
			return err
		}
	}
	if len(cfg.MCPServers) > 0 {
		servers, err := mcp.ParseServers(string(cfg.MCPServers), os.ReadFile)
		if err != nil {
			return fmt.Errorf("MCP_SERVERS: %w", err)
		}
		// A server that is down is logged and skipped inside Connect.
		a.mcp, err = mcp.Connect(ctx, servers, mcp.Options{Version: version, Logger: a.logger})
		if err != nil {
			return fmt.Errorf("MCP_SERVERS: %w", err)
		}
		for _, t := range a.mcp.Tools() {
			if err := a.tools.Register(t); err != nil {
				a.logger.Warn("mcp tool skipped", "tool", t.Meta().Name, "err", err)
			}
		}
	}
	a.tools.Before(tools.InjectCaller("session_id", func(c tools.Caller) string { return c.Session }))
	// What web searches find becomes knowledge (in the background).
	a.tools.After(chat.KnowledgeHook(a.memory))
	return nil
}

// buildRoutes wires the chat handlers, the scheduled posts and the slash
// commands.
func (a *app) buildRoutes(conv *chat.Conversation) error {
	cfg := a.cfg
	reminderTools, err := a.tools.Subset(reminder.Names...)
	if err != nil {
		return err
	}
	reminderConv := *conv
	reminderConv.Model, reminderConv.Tools = cfg.ReminderModel, reminderTools
	reminders, err := chat.NewReminderHandler(&reminderConv, cfg.Location)
	if err != nil {
		return err
	}
	reminders.ZoneOf = a.sched.Reminders().LocationFor

	// Both posts are always registered: the admin page may give them a
	// destination (or take it away) while yorozu runs.
	var guilds scheduler.ChannelGuilds
	if a.bot != nil {
		guilds = a.bot
	}
	postSpace := func(configured string, dest func() scheduler.Destination) func(context.Context) (string, error) {
		return scheduler.PostSpace(configured, dest, guilds, a.memory, a.logger)
	}
	a.tips = scheduler.NewTips(scheduler.TipsOptions{
		Topics: tipTopics{a.memory}, Pipeline: a.llm, Model: cfg.DefaultModel, Dest: a.dest(cfg.TipsWebhookURL, cfg.TipsChannelID),
		DB: a.db.pool, Cron: cfg.TipsCron, Location: cfg.Location, Logger: a.logger,
		Space: postSpace(cfg.TipsSpace, func() scheduler.Destination { return a.tips.Settings().Dest }),
	})
	if err := a.tips.Register(a.sched); err != nil {
		return err
	}
	smalltalk := &chat.Smalltalk{Chat: conv, Tips: a.tips, Topics: a.memory, Logger: a.logger}
	a.weather = scheduler.NewWeather(scheduler.WeatherOptions{
		// The post retries JMA itself: no remembered failure in its way.
		Forecasts: weather.NewClient(weather.ClientOptions{JMA: a.jma, FailureTTL: -1}),
		Office:    cfg.WeatherAreaCode, Dest: a.dest(cfg.WeatherWebhookURL, cfg.WeatherChannelID),
		DB: a.db.pool, Pipeline: a.llm, Model: cfg.WeatherNotifyModel, Cron: cfg.WeatherCron,
		Location: cfg.Location, Logger: a.logger,
		Space: postSpace(cfg.WeatherSpace, func() scheduler.Destination { return a.weather.Settings().Dest }),
	})
	if err := a.weather.Register(a.sched); err != nil {
		return err
	}

	for _, r := range []struct {
		name string
		h    chat.Handler
	}{
		{chat.RouteReminder, reminders},
		{chat.RouteSmalltalk, smalltalk},
		{chat.RouteProfile, &chat.ProfileHandler{Facts: a.memory, Chat: conv, Logger: a.logger}},
		{chat.RouteWeather, &chat.Weather{Chat: conv, Forecasts: a.forecasts, Office: cfg.WeatherAreaCode, Logger: a.logger}},
	} {
		if err := a.router.Add(r.name, r.h); err != nil {
			return err
		}
	}
	// Summaries read the channel log, or else Discord's history: without
	// the bot there is no route.
	if a.bot != nil {
		if err := a.router.Add(chat.RouteSummary, &chat.SummaryHandler{Summarizer: a.summary, Chat: conv, Keep: conv}); err != nil {
			return err
		}
	}
	if err := a.sched.AddHousekeeping(scheduler.HousekeepingOptions{
		SyncKnowledgeBase: a.memory.SyncKnowledgeBase, APILogRetention: cfg.APILogRetention,
		MessageRetention: cfg.MessageRetention, ChannelLogRetention: cfg.ChannelLogRetention,
	}); err != nil {
		return err
	}
	if a.bot != nil {
		a.addCommands(a.summary)
	}
	return nil
}

// addCommands gives the bot its slash commands.
func (a *app) addCommands(summarizer *chat.Summarizer) {
	channels := &commands.Channels{DB: a.db.pool, Models: a.llm.Pool(), Parents: a.bot, DefaultModel: a.defaultModel,
		Saved: a.channelSaved, Log: a.logger, Logs: a.chanlog, LogRetention: a.cfg.ChannelLogRetention}
	reminders := a.sched.Reminders()
	for _, c := range []commands.Command{
		commands.Remind(reminders, a.logger),
		commands.RemindThis(reminders, a.db.pool, a.buttons, a.logger),
		commands.Schedule(reminders, a.logger),
		commands.Timezone(reminders, a.logger),
		commands.Forget(a.memory, a.chanlog, a.logger),
		commands.Memory(a.memory, a.cfg.Location, a.logger),
		commands.Profile(a.memory, a.logger),
		commands.Stats(commands.StatsOptions{
			Live: func() commands.LiveStats { return commands.LiveStats(a.metrics.Stats()) },
			DB:   a.db.pool, Log: a.logger,
		}),
		channels.Persona(),
		channels.Model(),
		channels.ChannelMode(),
		commands.Summary(commands.SummaryOptions{Summarizer: summarizer, Readers: a.bot, Location: a.cfg.Location, Log: a.logger}),
		commands.SummaryFromHere(commands.SummaryOptions{Summarizer: summarizer, Location: a.cfg.Location, Log: a.logger}),
	} {
		a.bot.AddCommand(c)
	}
	a.bot.AddAsk()
	a.bot.AddButtons(commands.ReminderButtons(reminders, scheduler.ButtonPrefix, a.logger))
	a.bot.AddButtons(commands.RemindThisButtons(reminders, a.db.pool, a.buttons, a.logger))
	a.bot.AddButtons(commands.OfferButtons(a.db.pool, map[string]commands.OfferAction{
		memory.FactOfferKind: commands.ProfileOffer(a.memory), chat.PollOfferKind: a.bot.PollOffer(), chat.EventOfferKind: a.bot.EventOffer(clock)}, a.logger))
}

// schedulePost writes one occurrence of a scheduled post: the chat
// pipeline's answer to its prompt in its channel, with that channel's
// persona and model and the usual tools.
func (a *app) schedulePost(ctx context.Context, r db.Reminder) (string, error) {
	return chat.Answer(ctx, a.chooser, chat.Request{
		Session: r.SessionKey, Source: "discord", GuildID: r.GuildID, ChannelID: r.ChannelID,
		AuthorID: r.UserID, Text: r.Content, At: clock(), Chat: true,
	})
}

func (a *app) buildWeb(ctx context.Context) {
	checks := []web.Check{
		{Name: "database", Fn: func(ctx context.Context) error { return a.db.pool.Ping(ctx) }},
		{Name: "migrations", Fn: func(ctx context.Context) error {
			_, pending, err := db.MigrationStatus(ctx, a.db.pool)
			if err == nil && pending > 0 {
				err = fmt.Errorf("%d pending", pending)
			}
			return err
		}},
	}
	checks = append(checks, a.health.Checks()...)
	checks = append(checks, health.PoolCheck(a.llm.Pool()))
	checks = append(checks, a.discordChecks()...)
	checks = append(checks, a.disasterChecks()...)
	a.web = web.New(web.Options{
		Addr:           a.cfg.HTTPAddr,
		Checks:         checks,
		Metrics:        a.metrics.Handler(),
		Logger:         a.logger,
		Pool:           a.db.pool,
		MetricsPublic:  a.cfg.MetricsPublic,
		TrustedProxies: a.cfg.TrustedProxies,
		Pages:          web.PageRoutes(),
		Deps:           a.webDeps(ctx),
	})
}

// start serves: HTTP first (so /healthz answers while the rest comes up),
// then Discord, then the job queue, which may deliver through Discord.
func (a *app) start(ctx context.Context) error {
	a.goSafe("start-up checks", func() { a.health.Run(ctx) })
	a.goSafe("model servers", func() { a.llm.Pool().Run(ctx) })
	a.goSafe("database watch", func() { a.dbWatch.Run(ctx) })
	a.goSafe("save word pools", func() { a.words.SaveEvery(ctx, wordPoolSaveEvery) })
	// The router reads every mention's words: the first must not wait
	// for the dictionary.
	a.goSafe("load the dictionary", func() {
		if err := wordpool.Load(a.cfg.DataDir); err != nil {
			a.logger.Warn("load the dictionary", "err", err)
		}
	})
	onHangup(ctx, a.health.Recheck)
	if err := a.chanlog.Start(ctx); err != nil {
		a.logger.Warn("channel log settings not read: read again in the background", "err", err)
	}
	if err := a.startWeb(ctx); err != nil {
		return err
	}
	if a.bot != nil {
		if err := a.startDiscord(ctx); err != nil {
			return err
		}
	}
	if err := a.sched.Start(ctx); err != nil {
		return err
	}
	a.goSafe("weather catch-up", func() {
		if err := a.weather.CatchUp(ctx); err != nil && ctx.Err() == nil {
			a.logger.Error("weather catch-up", "err", err)
		}
	})
	if s := a.settings; s != nil {
		a.goSafe("follow settings", func() { s.Follow(ctx, a.logger.With("component", "settings")) })
	}
	a.goSafe("knowledge base sync at start", func() {
		if err := a.sched.RunNow(ctx, scheduler.KnowledgeBaseSyncJob); err != nil && ctx.Err() == nil {
			a.logger.Warn("knowledge base sync at start", "err", err)
		}
	})
	return nil
}

// setting is a setting in force by its admin page key: the page's value,
// else the environment's.
func (a *app) setting(key string) string {
	if s := a.settings; s != nil {
		return s.Get(key)
	}
	return health.EnvSettings(settingDefs(a.cfg))(key)
}

// defaultModel is the chat model in force: the admin page's setting, else
// DEFAULT_MODEL.
func (a *app) defaultModel() string {
	if s := a.settings; s != nil {
		if m := s.Get("default_model"); m != "" {
			return m
		}
	}
	return a.cfg.DefaultModel
}

// goSafe runs a start-up task in the background; a panic in it is logged
// and the process goes on without it.
func (a *app) goSafe(task string, fn func()) {
	go func() {
		defer func() {
			if p := recover(); p != nil {
				a.logger.Error("background task panicked", "task", task, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
		}()
		fn()
	}()
}

// stop shuts down in reverse: replies in flight finish while jobs and the
// database are still there, then jobs are handed back, then HTTP.
func (a *app) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if a.bot != nil {
		a.bot.Stop()
	}
	a.chanlog.Stop()
	if a.bot != nil {
		if err := a.handover.Release(ctx); err != nil {
			a.logger.Warn("release the Discord gateway lock", "err", err)
		}
	}
	if err := a.sched.Stop(ctx); err != nil {
		a.logger.Warn("job queue shutdown", "err", err)
	}
	a.memory.Close()
	if err := a.words.Save(ctx); err != nil {
		a.logger.Warn("save word pools", "err", err)
	}
	if err := a.web.Stop(ctx); err != nil {
		a.logger.Warn("http shutdown", "err", err)
	}
	a.closeTools()
}

func (a *app) closeTools() {
	if a.mcp != nil {
		if err := a.mcp.Close(); err != nil {
			a.logger.Warn("mcp shutdown", "err", err)
		}
	}
}

// database is the pool plus, without DATABASE_URL, the embedded server.
type database struct {
	pool     *pgxpool.Pool
	embedded *db.Embedded
	logger   *slog.Logger
}

func openDatabase(ctx context.Context, cfg *config.Config, stderr io.Writer, logger *slog.Logger) (*database, error) {
	d := &database{logger: logger}
	url := cfg.DatabaseURL
	if url == "" {
		logger.Info("DATABASE_URL is unset: starting embedded PostgreSQL", "data_dir", cfg.DataDir)
		e, err := db.StartEmbedded(ctx, cfg.DataDir)
		if err != nil {
			return nil, err
		}
		logger.Info("embedded PostgreSQL started; its output goes to a file", "log", e.LogPath())
		d.embedded, url = e, e.URL()
	}
	pool, err := db.Open(ctx, url)
	if err != nil {
		d.close()
		return nil, err
	}
	d.pool = pool
	return d, nil
}

func (d *database) close() {
	if d.pool != nil {
		d.pool.Close()
	}
	if d.embedded != nil {
		if err := d.embedded.Stop(); err != nil {
			d.logger.Warn("stop embedded postgres", "err", err)
		}
	}
}

// modelPool is the pool of servers, each server's backend made for its
// kind. A server's lease key is its URL without credentials or query, so
// processes share a server's slots however they name it.
func modelPool(servers []config.ModelServer, o llm.PoolOptions) (*llm.Pool, error) {
	o.Servers = nil
	for _, s := range servers {
		var b llm.Backend = llm.NewClient(s.URL, nil)
		if s.Kind == config.KindOpenAI {
			c, err := openaicompat.New(openaicompat.Config{BaseURL: s.URL.String(), APIKey: s.Key, KeyVar: s.KeyVar,
				Capabilities: openaicompat.Capabilities(s.Capabilities)})
			if err != nil {
				return nil, fmt.Errorf("model server %s: %w", s.Name, err)
			}
			b = c
		}
		key := *s.URL
		key.User, key.RawQuery = nil, ""
		o.Servers = append(o.Servers, llm.PoolServer{Name: s.Name, Kind: s.Kind, Key: key.String(), Backend: b, Slots: s.Slots})
	}
	return llm.NewPool(o), nil
}
