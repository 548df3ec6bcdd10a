package chat

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
)

// Pipeline runs one LLM turn; *llm.Pipeline satisfies it.
type Pipeline interface {
	Run(ctx context.Context, req llm.Request, emit func(llm.Event) error) (llm.Result, error)
}

// reserver is a Pipeline that can take the slot of a turn's first model
// call ahead of it; *llm.Pipeline satisfies it.
type reserver interface {
	Reserve(ctx context.Context, model string) (context.Context, func())
}

// Store gives a turn its context and keeps the turn; *memory.Memory
// satisfies it.
type Store interface {
	Context(ctx context.Context, key memory.SessionKey, space memory.Space, userText string, opts ...memory.ContextOption) ([]api.Message, error)
	Record(ctx context.Context, key memory.SessionKey, turn memory.Turn) error
}

// defaultSpacer names the space of turns that come with none (web chats);
// *memory.Memory satisfies it.
type defaultSpacer interface {
	DefaultSpace(ctx context.Context) (memory.Space, error)
}

// Conversation is the chat handler: context from memory, the pipeline with
// the tools, and the turn recorded afterwards. Other handlers (reminders,
// weather) wrap it with their own system text, model and tools.
type Conversation struct {
	Store    Store
	Pipeline Pipeline
	Model    string
	// Tools are offered to the model; nil offers none.
	Tools llm.ToolSet
	// System is extra system text added after the context's own.
	System string
	Logger *slog.Logger
	Now    func() time.Time
	// StoreTimeout bounds each call to Store, so a hung database fails the
	// turn instead of holding its channel's queue; default 10 s.
	StoreTimeout time.Duration

	// aside, when set, is more system text, worked out beside the
	// context's reads (withAside).
	aside func(ctx context.Context) string
}

// defaultStoreTimeout is the default Conversation.StoreTimeout, and bounds the
// channel settings lookup.
const defaultStoreTimeout = 10 * time.Second

// Handle answers req.
func (c *Conversation) Handle(ctx context.Context, req Request, emit func(llm.Event) error) error {
	key := memory.SessionKey(req.Session)
	space := req.space()
	model := c.Model
	if req.Model != "" {
		model = req.Model
	}
	if r, ok := c.Pipeline.(reserver); ok {
		// The model's slot is taken while the context is read.
		var unreserve func()
		ctx, unreserve = r.Reserve(ctx, model)
		defer unreserve()
	}
	sctx, cancel := context.WithTimeout(ctx, c.storeTimeout())
	defer cancel()
	if d, ok := c.Store.(defaultSpacer); ok && space == "" {
		// Tools and the call log see the space the turn really uses.
		if s, err := d.DefaultSpace(sctx); err == nil {
			space = s
		}
	}
	var aside chan string
	if c.aside != nil {
		aside = make(chan string, 1)
		go func() { aside <- c.aside(ctx) }()
	}
	msgs, err := c.Store.Context(sctx, key, space, req.Text,
		memory.WithPersona(req.Persona), memory.WithReplyChain(req.ReplyChain), memory.WithDocuments(req.Documents),
		memory.WithTalk(req.Talk), memory.WithSpeaker(req.AuthorID, req.AuthorName))
	if err != nil {
		return fmt.Errorf("chat %s: %w", req.Session, err)
	}
	asked := req.Text
	if n := len(msgs); len(req.Documents) > 0 && n > 0 && msgs[n-1].Role == "user" {
		// Kept as the model read it, documents (as far as they fit)
		// included, so the next turns know what was attached.
		asked = msgs[n-1].Content
	}
	system := c.System
	if aside != nil {
		system = strings.TrimSpace(system + "\n\n" + <-aside)
	}
	if system != "" {
		msgs = withSystem(msgs, system)
	}
	ctx = tools.WithCaller(ctx, tools.Caller{
		Session:   req.Session,
		Source:    req.Source,
		GuildID:   req.GuildID,
		ChannelID: req.ChannelID,
		UserID:    req.AuthorID,
		UserName:  req.AuthorName,
		Space:     string(space),
		MessageID: req.MessageID,
		Text:      req.Text,

		ManageChannels: req.ManageChannels,
	})
	var offers *tools.Offers
	if req.Source == "discord" && req.AuthorID != "" {
		// Only Discord shows an offer's buttons.
		offers = &tools.Offers{}
		ctx = tools.WithOffers(ctx, offers)
	}
	imgs := c.images(ctx, model, req)
	msgs = withImages(msgs, imgs.send)
	var act activityLog
	at := req.At
	if at.IsZero() {
		at = c.now()
	}
	turnWith := func(content string) memory.Turn {
		turn := turnOf(req, space, asked, at, memory.MessageRecord{Content: content, Model: model, At: c.now(), Activity: act.a})
		turn.User.Images = imgs.kept
		return turn
	}
	// The model is asked while the adapter's claim may still be on its
	// way (Admit): the claim is waited for before a tool runs and before
	// the turn is kept, not before the model starts. Once the answer is
	// complete the turn joins its session's context (begun), and the
	// adapter may start the channel's next turn while this one's calls
	// and the turn itself are being stored.
	var said strings.Builder
	var commit func(context.Context) error
	b, early := c.Store.(beginner)
	forward := act.watch(notesBeforeEnd(imgs.notes, admittedTools(ctx, req.Admit, emit)))
	complete := func(ev llm.Event) error {
		switch e := ev.(type) {
		case llm.Text:
			said.WriteString(e.Text)
		case llm.Done:
			if early && commit == nil {
				if req.Admit != nil {
					if err := req.Admit(ctx); err != nil {
						return fmt.Errorf("%w: %w", ErrNotAdmitted, err)
					}
				}
				commit = b.Begin(memory.SessionKey(req.Session), turnWith(said.String()))
				if req.Release != nil {
					req.Release()
				}
			}
		}
		return forward(ev)
	}
	res, runErr := c.Pipeline.Run(ctx, llm.Request{Model: model, Messages: msgs, Tools: c.Tools}, complete)
	if commit != nil {
		c.store(ctx, req, commit)
	} else {
		// A turn stopped (停止) is kept as written: the claim is waited
		// for past the turn's end.
		if req.Admit != nil {
			if err := req.Admit(context.WithoutCancel(ctx)); err != nil {
				return fmt.Errorf("%w: %w", ErrNotAdmitted, err)
			}
		}
		// A failed turn is kept too (the user's message, and whatever part
		// of the answer was written), so the next turn has it in context.
		turn := turnWith(res.Content)
		if runErr != nil && Stopped(ctx) {
			// Kept as written; the adapters show StoppedMark beside it.
			turn.Reply.Content = strings.TrimRight(res.Content, " \n")
			turn.Reply.Activity.Stopped = true
		}
		c.record(ctx, req, turn, runErr == nil)
	}
	if runErr == nil && offers != nil {
		for _, o := range offers.List() {
			if err := emit(llm.Offer{ID: o.ID, Kind: o.Kind, Preview: o.Preview, Accept: o.Accept, Decline: o.Decline}); err != nil {
				return err
			}
		}
	}
	return runErr
}

// turnOf is req, asked as asked at at, and its reply as memory keeps them.
func turnOf(req Request, space memory.Space, asked string, at time.Time, reply memory.MessageRecord) memory.Turn {
	return memory.Turn{
		Source:    req.Source,
		GuildID:   req.GuildID,
		ChannelID: req.ChannelID,
		Space:     space,
		User: memory.MessageRecord{
			AuthorID: req.AuthorID, AuthorName: req.AuthorName, Content: asked,
			PlatformMessageID: req.MessageID, At: at, ReplyTo: req.ReplyTo,
		},
		Reply: reply,
	}
}

// record keeps turn, req's, in its session; a failure is logged. A turn
// that answered (release) lets the adapter go on with the channel's next
// turn once it is stored. (With a store that keeps begun turns in the
// context, Handle begins an answered turn at its Done and releases the
// adapter then; record keeps the others.)
func (c *Conversation) record(ctx context.Context, req Request, turn memory.Turn, release bool) {
	c.store(ctx, req, func(ctx context.Context) error {
		return c.Store.Record(ctx, memory.SessionKey(req.Session), turn)
	})
	if release && req.Release != nil {
		req.Release()
	}
}

// store runs commit, which keeps a turn, under the store's own deadline:
// the reply is already out, so keeping it must not be cut short by a
// user-facing deadline. A failure is logged.
func (c *Conversation) store(ctx context.Context, req Request, commit func(context.Context) error) {
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), c.storeTimeout())
	defer rcancel()
	if err := commit(rctx); err != nil {
		c.logger().ErrorContext(ctx, "record turn", "session", req.Session, "err", err)
	}
}

// beginner is a Store that keeps a turn in its session's context from the
// moment it is begun, while it is being stored; *memory.Memory satisfies
// it.
type beginner interface {
	Begin(key memory.SessionKey, turn memory.Turn) (commit func(ctx context.Context) error)
}

// admittedTools passes events on to emit, waiting for admit (when set)
// before the first tool of the turn runs: a turn whose message another
// process claimed runs none.
func admittedTools(ctx context.Context, admit func(context.Context) error, emit func(llm.Event) error) func(llm.Event) error {
	if admit == nil {
		return emit
	}
	admitted := false
	return func(ev llm.Event) error {
		if _, ok := ev.(llm.ToolStarted); ok && !admitted {
			if err := admit(ctx); err != nil {
				return fmt.Errorf("%w: %w", ErrNotAdmitted, err)
			}
			admitted = true
		}
		return emit(ev)
	}
}

// with returns a copy of c whose system text ends with extra; handlers such
// as weather and reminders add their own instructions this way.
func (c *Conversation) with(extra string) *Conversation {
	cc := *c
	cc.System = strings.TrimSpace(c.System + "\n\n" + extra)
	return &cc
}

// withAside returns a copy of c whose system text ends with what extra
// returns (nothing when it returns ""). extra runs beside the reads of the
// turn's context, so a lookup of its own (a query, tokenising the text)
// adds no time before the model call; it must not write anything the turn
// depends on. An aside set before keeps its text, first.
func (c *Conversation) withAside(extra func(ctx context.Context) string) *Conversation {
	cc := *c
	cc.aside = extra
	if prev := c.aside; prev != nil {
		cc.aside = func(ctx context.Context) string {
			return strings.TrimSpace(prev(ctx) + "\n\n" + extra(ctx))
		}
	}
	return &cc
}

func (c *Conversation) storeTimeout() time.Duration {
	if c.StoreTimeout > 0 {
		return c.StoreTimeout
	}
	return defaultStoreTimeout
}

func (c *Conversation) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Conversation) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// withSystem inserts extra system text right after the leading system
// messages, so it is read before the history.
func withSystem(msgs []api.Message, text string) []api.Message {
	i := 0
	for i < len(msgs) && msgs[i].Role == "system" {
		i++
	}
	out := make([]api.Message, 0, len(msgs)+1)
	out = append(out, msgs[:i]...)
	out = append(out, api.Message{Role: "system", Content: text})
	return append(out, msgs[i:]...)
}
