package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// Profiles keeps what members tell yorozu about themselves;
// *memory.Memory satisfies it.
type Profiles interface {
	AddFact(ctx context.Context, space memory.Space, userID, name, text string) (db.MemberFact, error)
	Facts(ctx context.Context, space memory.Space, userID string) ([]db.MemberFact, error)
	ForgetFact(ctx context.Context, space memory.Space, userID string, id int64) error
	ForgetFacts(ctx context.Context, space memory.Space, userID string) (int64, error)
}

// ProfileCommandName is /profile's name, as Discord shows it to English
// users.
const ProfileCommandName = "profile"

// Profile is /profile (プロフィール): add, show and forget the facts the
// user asked yorozu to keep about them, in this server (in DMs, their
// own). Every answer is ephemeral: a profile is its member's business.
func Profile(p Profiles, log *slog.Logger) Command {
	return Command{
		Name:          ProfileCommandName,
		NameJA:        "プロフィール",
		Description:   "What yorozu keeps about you in this server (only you see it)",
		DescriptionJA: "よろずが覚えているあなたのこと（このサーバーごと。あなたにだけ見えます）",
		Options: []Option{
			{Type: Subcommand, Name: "add", Description: "Have yorozu remember something about you",
				DescriptionJA: "自分について覚えてほしいことを追加します",
				Options: []Option{{Type: String, Name: "fact", Description: "e.g. 私はエビアレルギー",
					DescriptionJA: "例：私はエビアレルギー（200 文字まで）", Required: true, MaxLength: memory.MaxFactChars}}},
			{Type: Subcommand, Name: "show", Description: "List what yorozu remembers about you",
				DescriptionJA: "覚えていることを一覧します"},
			{Type: Subcommand, Name: "forget", Description: "Delete one fact, or all",
				DescriptionJA: "覚えていることを 1 件、またはすべて消します",
				Options: []Option{
					{Type: Integer, Name: "id", Description: "the fact's number (see /profile show)",
						DescriptionJA: "消す項目の番号（/profile show で表示）", Autocomplete: true},
					{Type: Boolean, Name: "all", Description: "True deletes every fact", DescriptionJA: "True ならすべて消します"},
				}},
		},
		// A profile is kept in the database: it needs yorozu nowhere.
		Anywhere: true,
		Run: func(ctx context.Context, req Request) Reply {
			return Text(profileReply(ctx, p, req, log))
		},
		Complete: func(ctx context.Context, req Request) []Choice {
			facts, err := p.Facts(ctx, profileSpace(req), req.UserID)
			if err != nil {
				return nil
			}
			typed := req.String(req.Focused)
			var out []Choice
			for _, f := range facts {
				name := fmt.Sprintf("%d: %s", f.ID, f.Content)
				if typed != "" && !strings.Contains(name, typed) {
					continue
				}
				if r := []rune(name); len(r) > 100 {
					name = string(r[:99]) + "…"
				}
				out = append(out, Choice{Name: name, Value: strconv.FormatInt(f.ID, 10)})
			}
			return out
		},
	}
}

// profileSpace is the space whose profile a command shows: the server, or
// the user's own DMs.
func profileSpace(req Request) memory.Space {
	return memory.SpaceOf("discord", req.GuildID, req.UserID)
}

func profileReply(ctx context.Context, p Profiles, req Request, log *slog.Logger) string {
	space := profileSpace(req)
	switch req.Subcommand {
	case "add":
		fact := req.String("fact")
		kept, err := p.AddFact(ctx, space, req.UserID, "", fact)
		if err != nil {
			if !memory.IsFactRefusal(err) {
				log.Error("/profile add", "space", string(space), "user_id", req.UserID, "err", err)
			}
			return memory.FactRefusal(err, fact, false)
		}
		return fmt.Sprintf("覚えました（#%d）：%s", kept.ID, kept.Content)
	case "show":
		facts, err := p.Facts(ctx, space, req.UserID)
		if err != nil {
			log.Error("/profile show", "space", string(space), "user_id", req.UserID, "err", err)
			return "ごめんなさい、プロフィールを読み出せませんでした。しばらくしてからもう一度お試しください。"
		}
		if len(facts) == 0 {
			return "ここではまだ何も覚えていません。「覚えておいて：私はエビアレルギー」とメンションするか、`/profile add` で追加できます。"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "**あなたについて覚えていること**（%d/%d 件）\n", len(facts), memory.MaxFacts)
		for _, f := range facts {
			line := fmt.Sprintf("- #%d %s\n", f.ID, f.Content)
			if utf8.RuneCountInString(b.String()+line) > maxReplyRunes-40 {
				b.WriteString("…（続きは消してから表示されます）\n")
				break
			}
			b.WriteString(line)
		}
		b.WriteString("消すときは `/profile forget id:番号`（すべては `all: True`）。")
		return b.String()
	case "forget":
		if req.Bool("all") {
			n, err := p.ForgetFacts(ctx, space, req.UserID)
			if err != nil {
				log.Error("/profile forget all", "space", string(space), "user_id", req.UserID, "err", err)
				return "ごめんなさい、消せませんでした。しばらくしてからもう一度お試しください。"
			}
			if n == 0 {
				return "ここでは何も覚えていません。"
			}
			return fmt.Sprintf("覚えていたこと %d 件をすべて忘れました。", n)
		}
		id := req.Int("id")
		if id <= 0 {
			return "消す項目の番号を `id:` で指定してください（`/profile show` で確認できます）。すべて消すときは `all: True` です。"
		}
		err := p.ForgetFact(ctx, space, req.UserID, id)
		switch {
		case errors.Is(err, db.ErrNotFound):
			return fmt.Sprintf("#%d は、ここであなたについて覚えていることの中にありません。", id)
		case err != nil:
			log.Error("/profile forget", "space", string(space), "user_id", req.UserID, "fact_id", id, "err", err)
			return "ごめんなさい、消せませんでした。しばらくしてからもう一度お試しください。"
		}
		return fmt.Sprintf("#%d を忘れました。", id)
	}
	return unsupportedReply
}

// ProfileOffer keeps the fact of an accepted offer_profile_fact offer in
// its member's profile.
func ProfileOffer(p Profiles) OfferAction {
	return func(ctx context.Context, o db.Offer, _ Press) (string, error) {
		var payload memory.FactOffer
		if err := json.Unmarshal(o.Payload, &payload); err != nil {
			return "", fmt.Errorf("profile offer %d: %w", o.ID, err)
		}
		kept, err := p.AddFact(ctx, memory.Space(o.Space), o.UserID, "", payload.Fact)
		if memory.IsFactRefusal(err) {
			return "", Refusal(memory.FactRefusal(err, payload.Fact, false))
		}
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("✅ 覚えました（#%d）。`/profile show` で一覧できます。", kept.ID), nil
	}
}
