package db_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// RecentTags gives the tags of the space's latest unsummarised messages,
// newest first, across its conversations, and none of another space's.
func TestRecentTagsAcrossConversations(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	add := func(space, key string, at time.Time, tag string) {
		t.Helper()
		s, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: space, Key: key, At: at})
		if err != nil {
			t.Fatal(err)
		}
		m, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: s.ID, Role: db.RoleUser, Content: tag, CreatedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SetMessageTags(ctx, pool, m.ID, []string{tag}); err != nil {
			t.Fatal(err)
		}
	}
	for k := range 3 { // conversation k talked k hours after the first
		for i := range 3 {
			add("guild:1", fmt.Sprintf("discord:channel:%d", k), t0.Add(time.Duration(k)*time.Hour+time.Duration(i)*time.Minute), fmt.Sprintf("c%dm%d", k, i))
		}
	}
	add("guild:2", "discord:channel:9", t0.Add(5*time.Hour), "よそ")
	for _, tc := range []struct {
		messages int
		want     []string
	}{
		{2, []string{"c2m2", "c2m1"}},
		{4, []string{"c2m2", "c2m1", "c2m0", "c1m2"}},
		{20, []string{"c2m2", "c2m1", "c2m0", "c1m2", "c1m1", "c1m0", "c0m2", "c0m1", "c0m0"}},
	} {
		tags, err := db.RecentTags(ctx, pool, "guild:1", tc.messages, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tg := range tags {
			got = append(got, tg.Tag)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("RecentTags(%d) = %q, want %q", tc.messages, got, tc.want)
		}
	}
}
