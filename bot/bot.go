package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/memory/talk"
)

// DefaultAPIBase is Discord's own API origin.
const DefaultAPIBase = "https://discord.com/"

// Intents the bot identifies with. Message Content is a privileged intent:
// enable "MESSAGE CONTENT INTENT" for the application in the Developer Portal
// (Bot → Privileged Gateway Intents), or guild messages arrive without text.
// Guilds, Guild Messages and Direct Messages need no portal switch.
const Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages |
	discordgo.IntentsDirectMessages | discordgo.IntentsMessageContent

// Responder answers one user turn, streaming its progress through emit. The
// app's chat service implements it. When emit returns an error the turn
// should stop and return it.
type Responder interface {
	Respond(ctx context.Context, req chat.Request, emit func(llm.Event) error) error
}

// ReplyLog keeps the Discord message ids of a reply with its turn;
// *memory.Memory satisfies it.
type ReplyLog interface {
	RecordReplyIDs(ctx context.Context, key memory.SessionKey, userMessageID string, replyIDs []string) error
}

// Options configure a Bot. Zero values get the documented defaults.
type Options struct {
	Token      string       // bot token, with or without the "Bot " prefix; required
	APIBase    string       // origin of a Discord-compatible API; default DefaultAPIBase
	HTTPClient *http.Client // used for REST and gateway discovery; default: 20 s timeout
	Responder  Responder    // required
	// Replies learns the Discord ids of each reply once it is out; optional.
	Replies ReplyLog
	// Chains finds the stored part of a reply chain; optional (without it
	// every replied-to message comes from Discord).
	Chains ReplyChains
	// Claims makes each mention answered once, by one process, across
	// database outages and gateway hand-overs (see CatchUp); optional
	// (without it every mention delivered is answered, none caught up).
	Claims Claims
	// Modes are the channels' modes (mention, free, thread); optional
	// (without it every channel is answered by mention only).
	Modes ChannelModes
	// ModeRefresh is how often Modes is read again, so a change made by
	// another process applies here (one made here applies at once);
	// default 2 min: each read is a transaction of an idle process.
	ModeRefresh time.Duration
	// Reactions shows a turn's state on the user's message (DISCORD_REACTIONS):
	// ⏳ while it waits, removed when answered, ⚠️ when it failed.
	Reactions bool
	// ButtonKey signs the custom ids of the 停止 and 再生成 buttons on an
	// answer; without it answers carry no buttons.
	ButtonKey []byte
	// Turns forgets the turn an answer's 再生成 replaces; optional
	// (without it the conversation keeps both answers).
	Turns TurnForgetter
	// Names keeps what servers, channels, threads and users are called,
	// for the admin page (DatabaseNames); optional.
	Names NameStore

	// OutageWait is how long after it was sent a mention may wait for the
	// database and still be answered; default 60 s.
	OutageWait time.Duration

	Logger *slog.Logger // default slog.Default()

	// Guilds are the only servers served (DISCORD_GUILDS): mentions in
	// other servers are ignored (logged once per server) and DMs are
	// answered only for users who are members of one of them. Empty: all.
	Guilds []string

	// Limiter is the per-user rate limit, shared with the admin page's chat
	// so a user's turns count once whichever way they come; over it the user
	// gets a notice once and is not answered. Nil: one is built from
	// RateLimit per RateWindow.
	Limiter *chat.RateLimiter
	// RateLimit is how many turns one user may start per RateWindow when
	// Limiter is nil. 0 = unlimited.
	RateLimit  int
	RateWindow time.Duration // default 1 minute

	// MaxWaiting is how many turns may wait in one channel's queue behind
	// the one being answered; one more is told the bot is busy and is not
	// answered. Default 20.
	MaxWaiting int

	EditInterval time.Duration // least time between edits of one message while text streams; default 1 s
	// FirstTextLull is how long the stream must pause before an answer's
	// first text is shown while more may come, so that a fast model's
	// answer goes out whole in one message; default 10 ms.
	FirstTextLull   time.Duration
	ShutdownTimeout time.Duration    // how long Stop lets running replies finish before cutting them; default 10 s
	Now             func() time.Time // default time.Now

	// RetryMin and RetryMax bound the backoff between attempts to connect
	// while Discord is unreachable; defaults 1 s and 2 min.
	RetryMin, RetryMax time.Duration
	// OperatorRetry is how often a connection that only the operator can
	// fix (disallowed intents, a bad token) is tried again; default 5 min.
	// RetryNow (SIGHUP) tries at once.
	OperatorRetry time.Duration
	// CommandRetryMax bounds the backoff between attempts to register slash
	// commands Discord refused; default 10 min.
	CommandRetryMax time.Duration
}

// Bot is the Discord adapter: it turns mentions and DMs into chat requests,
// answers each channel in order and renders the streamed reply.
type Bot struct {
	opts    Options
	session *discordgo.Session
	log     *slog.Logger
	limiter *chat.RateLimiter
	filter  guildFilter // guarded by mu

	ctx    context.Context // ends when Stop gives up waiting for replies
	cancel context.CancelFunc
	wg     sync.WaitGroup // channel workers, notices and command handlers

	// loopCtx ends the connect and command-registration loops (loops).
	loopCtx    context.Context
	loopCancel context.CancelFunc
	loops      sync.WaitGroup
	// namesDone closes when the names writer (Options.Names) has ended,
	// after loopCtx.
	namesDone chan struct{}

	mu       sync.Mutex
	botID    string
	appID    string
	guilds   map[string]bool
	queues   map[string]*channelQueue
	started  bool
	leave    context.CancelFunc // ends the loops of the current Start
	stopping bool
	commands []*discordgo.ApplicationCommand
	handlers map[string]commands.Command // by name
	ask      bool                        // 「よろずに聞く」 is declared (AddAsk)
	askedAt  map[string]askTarget        // 「よろずに聞く」's messages from where yorozu is not (ask_absent.go)
	buttons  buttonSet                   // AddButtons's
	parents  map[string]string           // thread id -> parent channel ("" not a thread)
	own      ownWebhooks                 // the webhooks yorozu posts through (OwnWebhook)
	modes    map[string]string           // channel id -> its own mode (modes.go)
	running  map[string]*runningTurn     // answers streaming now, by the user's message id
	talk     *talk.Buffer                // the channels' recent talk (talk.go)
	// lastAnswer is each channel's last answer with buttons (noteLastAnswer).
	lastAnswer map[string]string
	seen       seenSet   // messages queued lately
	missed     *missed   // the catch-up of the next READY
	dropped    time.Time // when a lost gateway last proved alive, until connected again
	// pendingGuilds is the catch-up of the last READY, waiting for its
	// servers' channels.
	pendingGuilds *guildCatchUp

	// deferAfter is deferDeadline unless a test shortens it.
	deferAfter time.Duration

	state           State
	gatewayDiag     *Diagnosis // why the gateway is not connected
	commandsDiag    *Diagnosis // slash commands Discord refused
	commandsDone    bool
	commandsLooping bool

	ready         atomic.Bool
	readySig      chan struct{} // READY or RESUMED arrived
	disconnected  chan struct{}
	retryGateway  chan struct{}
	retryCommands chan struct{}
	stopOnce      sync.Once
	dgLog         *slog.Logger // discordgo's lines go here until Stop
}

// New builds a Bot; nothing connects until Start.
func New(opts Options) (*Bot, error) {
	if opts.Token == "" {
		return nil, errors.New("bot: token is required")
	}
	if opts.Responder == nil {
		return nil, errors.New("bot: responder is required")
	}
	if opts.APIBase == "" {
		opts.APIBase = DefaultAPIBase
	}
	base, err := url.Parse(opts.APIBase)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("bot: api base %q: want an http(s) URL", opts.APIBase)
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 20 * time.Second, Transport: restTransport()}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.RateWindow <= 0 {
		opts.RateWindow = time.Minute
	}
	if opts.Limiter == nil {
		opts.Limiter = chat.NewRateLimiter(opts.RateLimit, opts.RateWindow)
	}
	if opts.MaxWaiting <= 0 {
		opts.MaxWaiting = 20
	}
	if opts.ModeRefresh <= 0 {
		opts.ModeRefresh = 2 * time.Minute
	}
	if opts.OutageWait <= 0 {
		opts.OutageWait = time.Minute
	}
	if opts.EditInterval <= 0 {
		opts.EditInterval = time.Second
	}
	if opts.FirstTextLull <= 0 {
		opts.FirstTextLull = 10 * time.Millisecond
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.RetryMin <= 0 {
		opts.RetryMin = time.Second
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = 2 * time.Minute
	}
	if opts.OperatorRetry <= 0 {
		opts.OperatorRetry = 5 * time.Minute
	}
	if opts.CommandRetryMax <= 0 {
		opts.CommandRetryMax = 10 * time.Minute
	}

	token := opts.Token
	if !strings.HasPrefix(token, "Bot ") {
		token = "Bot " + token
	}
	s, err := discordgo.New(token)
	if err != nil {
		return nil, fmt.Errorf("bot: new session: %w", err)
	}
	s.Client = rebaseClient(opts.HTTPClient, base)
	// The gateway URL comes from GET {base}api/v{N}/gateway through s.Client;
	// the websocket is dialed with s.Dialer, honouring proxy settings.
	s.Dialer = &websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 30 * time.Second}
	s.Identify.Intents = Intents
	s.ShouldRetryOnRateLimit = true // discordgo waits out Retry-After on REST 429s itself
	// The bot's own loop reconnects (see connectLoop), so that a close only
	// the operator can fix is diagnosed instead of retried in a loop.
	s.ShouldReconnectOnError = false
	// Handlers run in the gateway's read loop, in arrival order, so messages
	// of one channel are queued in the order Discord sent them. They only
	// enqueue work and return.
	s.SyncEvents = true

	dgLog := routeDiscordgoLogs(s, opts.Logger)

	ctx, cancel := context.WithCancel(context.Background())
	loopCtx, loopCancel := context.WithCancel(context.Background())
	b := &Bot{
		opts:          opts,
		session:       s,
		log:           opts.Logger.With(slog.String("component", "discord")),
		limiter:       opts.Limiter,
		ctx:           ctx,
		cancel:        cancel,
		loopCtx:       loopCtx,
		loopCancel:    loopCancel,
		dgLog:         dgLog,
		queues:        map[string]*channelQueue{},
		handlers:      map[string]commands.Command{},
		parents:       map[string]string{},
		running:       map[string]*runningTurn{},
		talk:          talk.New(talk.Options{}),
		state:         StateStarting,
		readySig:      make(chan struct{}, 1),
		disconnected:  make(chan struct{}, 1),
		retryGateway:  make(chan struct{}, 1),
		retryCommands: make(chan struct{}, 1),
	}
	if len(opts.ButtonKey) > 0 {
		b.buttons.list = append(b.buttons.list, commands.Buttons{Prefix: answerButtonPrefix, Press: b.pressAnswer})
	}
	s.AddHandler(b.onReady)
	s.AddHandler(b.onResumed)
	s.AddHandler(b.onDisconnect)
	s.AddHandler(b.onGuildCreate)
	s.AddHandler(b.onGuildDelete)
	s.AddHandler(b.onMessageCreate)
	s.AddHandler(b.onInteractionCreate)
	b.addTalkHandlers(s)
	if opts.Names != nil {
		b.followNames(opts.Names)
	}
	return b, nil
}

// Session is the underlying discordgo session, for sending messages outside
// a turn (reminders, scheduled posts). Its REST calls go to the API base.
func (b *Bot) Session() *discordgo.Session { return b.session }

// Ready reports whether the gateway is connected; Status says more.
func (b *Bot) Ready() bool { return b.ready.Load() }

// UserID is the bot's own user id, known once Start returned.
func (b *Bot) UserID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.botID
}

// Stop closes the gateway, drops turns still waiting in channel queues, lets
// running replies finish for up to ShutdownTimeout, then cuts them (the
// partial answer stays, with a note). Safe to call more than once.
func (b *Bot) Stop() {
	b.stopOnce.Do(func() {
		b.mu.Lock()
		b.stopping = true
		dropped := b.dropQueued()
		b.mu.Unlock()
		// The loops end at once when their context does; closing after them
		// leaves no connection a racing attempt could have opened.
		b.loopCancel()
		b.loops.Wait()
		if b.namesDone != nil {
			<-b.namesDone
		}
		b.ready.Store(false)
		if err := b.session.Close(); err != nil {
			b.log.Warn("discord close", "err", err)
		}
		unrouteDiscordgoLogs(b.dgLog)
		b.mu.Lock()
		b.state = StateStopped
		b.mu.Unlock()

		done := make(chan struct{})
		go func() {
			b.wg.Wait()
			close(done)
		}()
		t := time.NewTimer(b.opts.ShutdownTimeout)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			b.log.Warn("discord stop: cutting running replies")
			b.cancel()
			<-done // cut replies write their last content with per-call deadlines
		}
		b.cancel()
		if dropped > 0 {
			b.log.Warn("discord stop: queued messages not answered", "count", dropped)
		}
	})
}

func (b *Bot) now() time.Time { return b.opts.Now() }

// goEvent runs fn on its own goroutine, which Stop waits for, recovering a
// panic as event; a stopping bot runs nothing.
func (b *Bot) goEvent(event string, fn func()) {
	b.mu.Lock()
	if b.stopping {
		b.mu.Unlock()
		return
	}
	b.wg.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.wg.Done()
		defer b.recoverEvent(event)
		fn()
	}()
}

// recoverEvent keeps one bad event from taking the gateway loop down.
func (b *Bot) recoverEvent(event string) {
	if p := recover(); p != nil {
		b.log.Error("discord event handler panic", "event", event, "panic", fmt.Sprint(p))
	}
}
