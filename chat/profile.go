package chat

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
)

// FactKeeper keeps what members tell yorozu about themselves;
// *memory.Memory satisfies it.
type FactKeeper interface {
	AddFact(ctx context.Context, space memory.Space, userID, name, text string) (db.MemberFact, error)
	Facts(ctx context.Context, space memory.Space, userID string) ([]db.MemberFact, error)
}

// ProfileHandler answers 「覚えておいて：私はエビアレルギー」: the fact is
// kept in the member's profile of the space (no model call) and read back,
// or refused with the reason.
type ProfileHandler struct {
	Facts FactKeeper // required
	// Chat answers turns with no member to keep facts for (the admin
	// page's chats).
	Chat   Handler
	Logger *slog.Logger
}

// Handle keeps the fact req states and says so.
func (h *ProfileHandler) Handle(ctx context.Context, req Request, emit func(llm.Event) error) error {
	if (req.Source != "discord" || req.AuthorID == "") && h.Chat != nil {
		return h.Chat.Handle(ctx, req, emit)
	}
	if req.Admit != nil {
		if err := req.Admit(ctx); err != nil {
			return fmt.Errorf("%w: %w", ErrNotAdmitted, err)
		}
	}
	text := h.keep(ctx, req)
	if err := emit(llm.Text{Text: text}); err != nil {
		return err
	}
	return emit(llm.Done{})
}

func (h *ProfileHandler) keep(ctx context.Context, req Request) string {
	en := isASCII(req.Text)
	fact := FactOf(req.Text)
	space := req.space()
	kept, err := h.Facts.AddFact(ctx, space, req.AuthorID, req.AuthorName, fact)
	if err != nil {
		if !memory.IsFactRefusal(err) {
			h.logger().ErrorContext(ctx, "keep member fact", "space", string(space), "user_id", req.AuthorID, "err", err)
		}
		return memory.FactRefusal(err, fact, en)
	}
	n := 0
	if facts, err := h.Facts.Facts(ctx, space, req.AuthorID); err == nil {
		n = len(facts)
	}
	if en {
		return fmt.Sprintf("Got it, I'll remember: %s (%d of %d in your profile here). `/profile show` lists them, `/profile forget` deletes them.",
			kept.Content, n, memory.MaxFacts)
	}
	return fmt.Sprintf("覚えました：%s（%sのあなたのプロフィール %d/%d 件）。`/profile show` で一覧、`/profile forget` で削除できます。",
		kept.Content, spaceName(req), n, memory.MaxFacts)
}

func (h *ProfileHandler) logger() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

// spaceName is where a profile lives, as the member says it.
func spaceName(req Request) string {
	if req.GuildID == "" {
		return "DM"
	}
	return "このサーバー"
}

var (
	// rememberHead is a request to remember before the fact:
	// 覚えておいて：…, 覚えといてね、…, remember that ….
	rememberHead = regexp.MustCompile(`(?i)^\s*((これ|これを)?(覚え|おぼえ)(ておいて|といて|て)(ね|ください|下さい|ほしい|欲しい)?|(please\s+)?remember(\s+that)?)\s*[：:、,。\s]\s*`)
	// rememberTail is one after it: …って覚えておいて, …と覚えといてね.
	rememberTail = regexp.MustCompile(`(?i)\s*[、,]?\s*(だ|です)?(って|と|ということ|ってこと|こと)?(を)?(覚え|おぼえ)(ておいて|といて|て)(ね|ください|下さい|ほしい|欲しい|くれる)?\s*[。！!？?]*$`)
)

// FactOf is the fact in a request to remember it: 「覚えておいて：私はエビア
// レルギー」 and 「私はエビアレルギーだって覚えておいて」 give 私はエビアレルギー;
// a statement (私の誕生日は3月3日) is the fact itself.
func FactOf(text string) string {
	text = strings.TrimSpace(text)
	text = rememberHead.ReplaceAllString(text, "")
	text = rememberTail.ReplaceAllString(text, "")
	return strings.TrimSpace(strings.TrimRight(text, "。！!"))
}
