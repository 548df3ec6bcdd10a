package memory

import (
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
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
)

// Options configures a Memory. Zero values take the documented defaults.
type Options struct {
	// Location is the time zone of dates shown to the model (TIMEZONE).
	// Default: time.Local.
	Location *time.Location
	// Now is the clock. Default: time.Now.
	Now func() time.Time
	// Persona opens the system prompt. Default: DefaultPersona.
	Persona string
	// MaxMessages bounds the history given to the model. Default: 30.
	MaxMessages int
	// MaxChars bounds the characters (runes) of that history; the oldest
	// messages go first, the newest always stays. Default: 12,000.
	MaxChars int
	// AfterRecord runs after a turn has been stored, for background work
	// such as the word pool, tags and summaries. It is called synchronously
	// on the turn's path, so it must be quick or start its own goroutine.
	AfterRecord func(key SessionKey, turn Turn)
}

// Memory stores conversations in Postgres and assembles the model's context.
type Memory struct {
	pool *pgxpool.Pool
	opts Options
}

// New returns a Memory on pool.
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
	return &Memory{pool: pool, opts: opts}
}
