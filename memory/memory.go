package memory

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ollama/ollama/api"
)

// DefaultPersona is the system prompt used when Options.Persona is empty.
const DefaultPersona = `あなたは「よろず」(yorozu) です。Discord のコミュニティで皆を手伝う、気さくで頼れるアシスタントです。
- 相手と同じ言語で答えてください。言語がはっきりしないときは日本語で答えます。
- 簡潔に、結論から答えてください。長い説明は求められたときだけにします。
- Discord の Markdown (太字、箇条書き、コードブロック) が使えます。表は表示できないので使いません。
- 会話には複数の人が参加します。これまでの会話のユーザーの発言には「名前: 」が付いています。
- 分からないことや確かでないことは、正直にそう伝えてください。`

// Defaults for Options.
const (
	DefaultMaxMessages = 30
	DefaultMaxChars    = 12000
	DefaultTokenBudget = 6000
	DefaultSummarizeAt = 20
	DefaultModel       = "qwen3:4b"
	DefaultEmbedModel  = "bge-m3"
)

// Ollama is what memory asks of the model server: chat (summaries, tags,
// knowledge) and embeddings (knowledge base). *api.Client satisfies it.
type Ollama interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
	Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error)
}

// Options configures a Memory. Zero values take the documented defaults.
type Options struct {
	// Location is the time zone of dates shown to the model (TIMEZONE).
	// Default: time.Local.
	Location *time.Location
	// Now is the clock. Default: time.Now.
	Now func() time.Time
	// Persona opens the system prompt. Default: DefaultPersona.
	Persona string
	// MaxMessages bounds the unsummarised history read per turn. Default: 30.
	MaxMessages int
	// MaxChars bounds the characters (runes) of that history; the oldest
	// messages go first, the newest always stays. Default: 12,000.
	MaxChars int
	// TokenBudget bounds the estimated tokens of everything Context returns
	// (CONTEXT_TOKEN_BUDGET); see EstimateTokens and the package doc for how
	// layers give way. Default: 6,000.
	TokenBudget int
	// AfterRecord runs after a turn has been stored. It is called
	// synchronously on the turn's path, so it must be quick or start its
	// own goroutine. Memory's own background work (tags, the word pool,
	// summaries) runs whether or not it is set.
	AfterRecord func(key SessionKey, turn Turn)
	// Words gives the word pool of a space (each space has its own, so one
	// community's words never become another's topics). Message tags are
	// ranked against it, the nouns of users' messages feed it (in the
	// background), and topics fall back to it. nil: tags by frequency alone.
	Words func(ctx context.Context, space Space) WordPool
	// WordsReady is Words for a turn before its model call (the small-talk
	// topic's fallback): nil while the space's pool is being seeded
	// rather than waiting for it. nil: Words is asked.
	WordsReady func(space Space) WordPool

	// Ollama serves summaries (with their tags), knowledge entries and
	// embeddings. nil turns them off: no summaries (history is still cut to
	// the budget), no knowledge entries, no knowledge-base layer. Message
	// tags never need it.
	Ollama Ollama
	// Model writes summaries and knowledge entries (DEFAULT_MODEL).
	// Default: DefaultModel.
	Model string
	// EmbedModel embeds the knowledge base and the user's message
	// (EMBED_MODEL). Default: DefaultEmbedModel.
	EmbedModel string
	// KnowledgeDir is the knowledge base folder (DATA_DIR/knowledge_base):
	// **.md files are indexed, web knowledge is written to its web_search
	// folder. "" turns the knowledge base and knowledge files off.
	KnowledgeDir string
	// SummarizeAt is how many messages one summary covers. A summary is
	// written when a session holds SummarizeAt and half as many again
	// unsummarised messages; the newest half-of-SummarizeAt stay verbatim.
	// So a tool-less conversation costs one summary call per SummarizeAt
	// messages. Default: 20.
	SummarizeAt int
	// ModelTimeout bounds each background model call. Default: 2 minutes.
	ModelTimeout time.Duration
	// KBCacheFiles and KBCacheBytes bound the knowledge base's texts held in
	// memory (least recently found out; the files' vectors are always
	// held); defaults 1,000 files and 16 MiB.
	KBCacheFiles, KBCacheBytes int
	// TopicTagsRefresh is how old a space's recent tags (small talk's
	// topics) may grow before they are read again, in the background;
	// this process's own turns show at once. Default: 30 s.
	TopicTagsRefresh time.Duration
	// EmbedTimeout bounds embedding the user's message on a turn; past it
	// the turn goes without the knowledge-base layer. Default: 3 s.
	EmbedTimeout time.Duration
	// DefaultSpace is the space of web chats and scheduled posts that name
	// none. Default: the only server that has used the bot, else WebSpace.
	DefaultSpace Space
	// Logger gets background failures, as component=memory; a warning
	// within a minute of the last one is logged at INFO, so an outage is
	// one warning, not one per turn. Default: slog.Default().
	Logger *slog.Logger

	// ContextCache is how many conversations' context reads (recent
	// messages, summaries, knowledge headings, notes, the speaker's facts)
	// are kept in memory, least recently used out first, so that a turn
	// in a conversation active lately makes no database round trip
	// (DefaultContextCache is the usual size). The cache follows every
	// change, by any process, through the database's notices on one
	// connection of its own; while that connection is down the cache is
	// off. 0: no cache, no connection.
	ContextCache int
	// ContextCacheBytes bounds the cache's estimated size. Default: 4 MiB.
	ContextCacheBytes int
}

// Memory stores conversations in Postgres and assembles the model's context.
type Memory struct {
	pool *pgxpool.Pool
	opts Options
	log  *slog.Logger

	bg     background
	kb     kbIndex
	topics topicTags
	// legacyFiled is set once a knowledge-base sync found no entry left
	// in the folder from before spaces: none is written there any more.
	legacyFiled atomic.Bool

	sumMu       sync.Mutex
	summarizing map[int64]bool // session id -> run again: one summary run per session at a time

	// pending are the turns begun and not yet stored; cache (nil: off)
	// keeps context reads; origin tags this Memory's own turn writes.
	pending     pendingTurns
	cache       *ctxCache
	origin      string
	stopListen  context.CancelFunc
	listenDone  chan struct{}
	closeListen sync.Once
}

// New returns a Memory on pool. Call Close when done to stop its
// background work.
func New(pool *pgxpool.Pool, opts Options) *Memory {
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Persona == "" {
		opts.Persona = DefaultPersona
	}
	if opts.MaxMessages <= 0 {
		opts.MaxMessages = DefaultMaxMessages
	}
	if opts.MaxChars <= 0 {
		opts.MaxChars = DefaultMaxChars
	}
	if opts.TokenBudget <= 0 {
		opts.TokenBudget = DefaultTokenBudget
	}
	if opts.SummarizeAt <= 1 {
		opts.SummarizeAt = DefaultSummarizeAt
	}
	if opts.Model == "" {
		opts.Model = DefaultModel
	}
	if opts.EmbedModel == "" {
		opts.EmbedModel = DefaultEmbedModel
	}
	if opts.ModelTimeout <= 0 {
		opts.ModelTimeout = 2 * time.Minute
	}
	if opts.KBCacheFiles <= 0 {
		opts.KBCacheFiles = defaultKBCacheFiles
	}
	if opts.KBCacheBytes <= 0 {
		opts.KBCacheBytes = defaultKBCacheBytes
	}
	if opts.TopicTagsRefresh <= 0 {
		opts.TopicTagsRefresh = defaultTopicTagsRefresh
	}
	if opts.EmbedTimeout <= 0 {
		opts.EmbedTimeout = 3 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ContextCacheBytes <= 0 {
		opts.ContextCacheBytes = defaultContextCacheBytes
	}
	m := &Memory{pool: pool, opts: opts, log: slog.New(quietRepeats(opts.Logger.With("component", "memory").Handler())), origin: newOrigin()}
	m.bg.init(bgWorkers, bgQueue, m.log)
	if opts.ContextCache > 0 {
		m.cache = newCtxCache(opts.ContextCache, opts.ContextCacheBytes)
		var ctx context.Context
		ctx, m.stopListen = context.WithCancel(context.Background())
		m.startListening(ctx)
	}
	return m
}

// Close stops the background work: queued jobs are dropped, running ones
// are cancelled (a cancelled summary leaves its messages unarchived, to be
// summarised next time); the context cache stops listening and is off. It
// is idempotent.
func (m *Memory) Close() {
	m.bg.close()
	if m.stopListen != nil {
		m.closeListen.Do(func() {
			m.stopListen()
			<-m.listenDone
		})
	}
}
