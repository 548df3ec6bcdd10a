package db_test

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// TestSearchMessages: words in Japanese (two characters too) and English,
// all words of a query, newest first, every conversation.
func TestSearchMessages(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	web, err := db.CreateSession(ctx, pool, db.NewSession{Key: "web:a", Source: "web", Space: "web"})
	if err != nil {
		t.Fatal(err)
	}
	discord, err := db.CreateSession(ctx, pool, db.NewSession{Key: "discord:channel:1", Source: "discord", Space: "guild:1"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	ids := map[string]int64{}
	for i, m := range []struct {
		sess    int64
		role    string
		content string
	}{
		{web.ID, db.RoleUser, "明日の天気は？"},
		{web.ID, db.RoleAssistant, "明日は晴れです。東京タワーからの眺めもきれいでしょう。"},
		{discord.ID, db.RoleUser, "「東京タワー」の高さを教えて"},
		{discord.ID, db.RoleAssistant, "Tokyo Tower is 333 m tall."},
		{web.ID, db.RoleUser, "会議は何時から？"},
		{web.ID, db.RoleSystem, "天気の通知（system は探さない）"},
		{web.ID, db.RoleUser, "東京の京タワー"}, // every pair of 東京タワー, but not the word
	} {
		msg, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: m.sess, Role: m.role, Content: m.content, CreatedAt: at.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		ids[m.content] = msg.ID
	}
	for _, tc := range []struct {
		name, q string
		want    []string // newest first
	}{
		{"two characters", "天気", []string{"明日の天気は？"}},
		{"a katakana word", "東京タワー", []string{"「東京タワー」の高さを教えて", "明日は晴れです。東京タワーからの眺めもきれいでしょう。"}},
		{"English, any case, a prefix", "tok", []string{"Tokyo Tower is 333 m tall."}},
		{"every word", "tower 333", []string{"Tokyo Tower is 333 m tall."}},
		{"words in two languages", "東京タワー 眺め", []string{"明日は晴れです。東京タワーからの眺めもきれいでしょう。"}},
		{"会議", "会議", []string{"会議は何時から？"}},
		{"nothing", "富士山", nil},
		{"punctuation only", "！？", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := db.SearchMessages(ctx, pool, tc.q, 50)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.Content)
				if h.MessageID != ids[h.Content] {
					t.Errorf("hit %q has message id %d, want %d", h.Content, h.MessageID, ids[h.Content])
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("search %q = %q, want %q", tc.q, got, tc.want)
			}
			if !sort.SliceIsSorted(hits, func(i, j int) bool { return hits[i].CreatedAt.After(hits[j].CreatedAt) }) {
				t.Errorf("search %q not newest first", tc.q)
			}
		})
	}
	// An edited message is found by its new text.
	if _, err := pool.Exec(ctx, `UPDATE messages SET content = '会議は延期' WHERE id = $1`, ids["会議は何時から？"]); err != nil {
		t.Fatal(err)
	}
	if hits, _ := db.SearchMessages(ctx, pool, "延期", 10); len(hits) != 1 {
		t.Errorf("the edited message is not found by its new text: %+v", hits)
	}
}
