package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/tools"
)

// TestPollOfferOnlyInAServer: a poll is refused in a DM (where 「よろずに聞く」
// from a group DM is answered too) with the reason, before anything is kept.
func TestPollOfferOnlyInAServer(t *testing.T) {
	ctx := tools.WithCaller(context.Background(), tools.Caller{
		Session: "discord:dm:800", Source: "discord", ChannelID: "800", UserID: "41",
	})
	ctx = tools.WithOffers(ctx, &tools.Offers{})
	_, err := offerPoll(ctx, nil, pollOfferArgs{Question: "来週の日程", Options: []string{"月曜", "水曜"}})
	if err == nil || !strings.Contains(err.Error(), "only in a server's channel") {
		t.Fatalf("err = %v, want the poll refused outside a server", err)
	}
}
