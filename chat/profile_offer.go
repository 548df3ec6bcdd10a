package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
)

// ProfileOfferName is the tool with which the model offers to keep a fact.
const ProfileOfferName = "offer_profile_fact"

type factOfferArgs struct {
	Fact string `json:"fact" jsonschema_description:"the fact in the user's own words and language, first person, short (at most 200 characters), e.g. 私はエビアレルギー"`
}

// ProfileOfferTool is offer_profile_fact, keeping its offers in q: the
// model offers to keep a fact a member mentioned about themselves, and
// nothing is kept until that member presses 覚える under the answer.
func ProfileOfferTool(q db.Querier) tools.Tool {
	return tools.MustNew(ProfileOfferName,
		"Offer to remember a lasting fact the user just mentioned about themselves (an allergy, their birthday, a preference) that would help later, when they did not ask you to remember it. "+
			"The user then sees 覚える / 覚えない buttons under your answer; nothing is kept unless they press 覚える. Use it rarely, at most once a turn, never for facts about other people or for passing moods.",
		func(ctx context.Context, a factOfferArgs) (string, error) { return offerFact(ctx, q, a) })
}

func offerFact(ctx context.Context, q db.Querier, a factOfferArgs) (string, error) {
	c, _ := tools.CallerFrom(ctx)
	if c.UserID == "" || c.Space == "" || !tools.CanOffer(ctx) {
		return "", errors.New("facts can be offered only in a Discord conversation: do not retry")
	}
	fact := strings.Join(strings.Fields(a.Fact), " ")
	switch err := memory.CheckFact(fact); {
	case errors.Is(err, memory.ErrFactOfOthers):
		return "", errors.New("that fact is about someone else: only facts about the user themselves may be kept; do not retry")
	case err != nil:
		return "", fmt.Errorf("cannot offer that fact (%w): give one short fact about the user, at most %d characters", err, memory.MaxFactChars)
	}
	payload, err := json.Marshal(memory.FactOffer{Fact: fact})
	if err != nil {
		return "", err
	}
	o, err := db.CreateOffer(ctx, q, db.Offer{Kind: memory.FactOfferKind, Space: c.Space, UserID: c.UserID, GuildID: c.GuildID, ChannelID: c.ChannelID, Payload: payload})
	if err != nil {
		return "", err
	}
	tools.Offer(ctx, tools.Offered{ID: o.ID, Kind: memory.FactOfferKind, Accept: "覚える", Decline: "覚えない",
		Preview: "このことを覚えておきましょうか？（押せるのは話した本人だけです）\n> " + fact})
	return "Offered: the user sees 覚える / 覚えない buttons under your answer, and the fact is kept only if they press 覚える. Do not say it is already kept.", nil
}
