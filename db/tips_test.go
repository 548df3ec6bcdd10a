package db_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestTipsNewestFirst(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	t0 := time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC)
	for i, c := range []string{"一つ目", "二つ目", "三つ目"} {
		if _, err := db.InsertTip(ctx, pool, db.TipParams{Space: "web", Topic: "猫", Content: c, Normalized: c, PostedAt: t0.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	tips, err := db.RecentTips(ctx, pool, "web", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(tips) != 2 || tips[0].Content != "三つ目" || tips[1].Content != "二つ目" || tips[0].Topic != "猫" {
		t.Fatalf("recent tips = %+v", tips)
	}
}

func TestRecentUserTextsOfASpace(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	t0 := time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC)
	n := 0
	for _, s := range []struct{ key, space string }{
		{"discord:channel:1", "guild:1"}, {"discord:channel:2", "guild:1"}, {"discord:channel:3", "guild:2"},
	} {
		sess, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: s.space, Key: s.key})
		if err != nil {
			t.Fatal(err)
		}
		for _, role := range []string{db.RoleUser, db.RoleAssistant} {
			n++
			if _, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: sess.ID, Role: role,
				Content: s.key + " " + role, CreatedAt: t0.Add(time.Duration(n) * time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	texts, err := db.RecentUserTexts(ctx, pool, "guild:1", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 2 || texts[0] != "discord:channel:1 user" || texts[1] != "discord:channel:2 user" {
		t.Fatalf("texts = %q, want the user messages of both sessions of guild:1 alone, oldest first", texts)
	}
}

// Conversations talked in by turns give exactly the latest texts; one
// ranked second gives at most half of them, however much it holds.
func TestRecentUserTextsReadsLessOfOlderConversations(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	t0 := time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC)
	// As a turn does: the session moves to the message's time, then the
	// message is stored.
	say := func(session, n int) {
		t.Helper()
		at := t0.Add(time.Duration(n) * time.Minute)
		sess, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: "guild:1", Key: fmt.Sprintf("discord:channel:%d", session), At: at})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: sess.ID, Role: db.RoleUser,
			Content: fmt.Sprint(n), CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	for n := range 30 {
		say(n%3, n)
	}
	texts, err := db.RecentUserTexts(ctx, pool, "guild:1", 12)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"18", "19", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29"}; !slices.Equal(texts, want) {
		t.Fatalf("by turns: texts = %q, want %q", texts, want)
	}

	// The second conversation says ten more, then the first one more.
	for n := 30; n < 40; n++ {
		say(1, n)
	}
	say(0, 40)
	if texts, err = db.RecentUserTexts(ctx, pool, "guild:1", 12); err != nil {
		t.Fatal(err)
	}
	second := 0
	for _, text := range texts {
		var n int
		fmt.Sscan(text, &n)
		if n >= 30 && n < 40 || n%3 == 1 && n < 30 {
			second++
		}
	}
	if len(texts) != 12 || texts[11] != "40" || second != 6 {
		t.Fatalf("texts = %q (%d of the second conversation), want 12 ending with 40, 6 of the second", texts, second)
	}
}

func TestJobSlotClaimedOnce(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	slot := time.Date(2025, 6, 10, 6, 30, 0, 0, time.FixedZone("JST", 9*3600))

	// Eight racing claims: exactly one wins.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := db.ClaimJobSlot(ctx, pool, "weather", slot, time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d claims won, want 1", wins)
	}
	// Released (the post failed): claimable again; a zero lease lets a stale claim be taken over.
	if err := db.ReleaseJobSlot(ctx, pool, "weather", slot); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.ClaimJobSlot(ctx, pool, "weather", slot, time.Minute); err != nil || !ok {
		t.Fatalf("claim after release = %v, %v", ok, err)
	}
	if ok, err := db.ClaimJobSlot(ctx, pool, "weather", slot, 0); err != nil || !ok {
		t.Fatalf("take over an expired claim = %v, %v", ok, err)
	}
	if posted, _ := db.JobSlotPosted(ctx, pool, "weather", slot); posted {
		t.Fatal("posted before MarkJobSlotPosted")
	}
	if err := db.MarkJobSlotPosted(ctx, pool, "weather", slot); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.ClaimJobSlot(ctx, pool, "weather", slot, 0); err != nil || ok {
		t.Fatalf("claim of a posted slot = %v, %v; want false", ok, err)
	}
	if posted, _ := db.JobSlotPosted(ctx, pool, "weather", slot); !posted {
		t.Fatal("not posted after MarkJobSlotPosted")
	}
	if ok, _ := db.ClaimJobSlot(ctx, pool, "tips", slot, time.Minute); !ok {
		t.Fatal("another job's slot at the same time should be free")
	}
}
