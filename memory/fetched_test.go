package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

func TestKeepFetched(t *testing.T) {
	m := newFixture(t).memory(t, nil)
	ctx := context.Background()
	key := memory.DiscordChannel("10")

	// 5 MB of Japanese text: kept cut at 2 MB on a character boundary, marked.
	big := strings.Repeat("あいうえおかきくけこ\n", 5<<20/31)
	f, err := m.KeepFetched(ctx, key, memory.FetchedDoc{URL: "https://example.org/big.txt", MediaType: "text/plain", Size: int64(len(big)), Text: big})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.FetchedFile(ctx, key, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Truncated || len(got.Content) > memory.MaxFetchedBytes || !utf8.ValidString(got.Content) || !strings.HasSuffix(got.Content, "2 MB of this document's text were kept]") {
		t.Errorf("kept %d bytes, truncated=%v, valid=%v; want ≤ 2 MB, cut and marked", len(got.Content), got.Truncated, utf8.ValidString(got.Content))
	}

	// The same URL again replaces the entry.
	again, err := m.KeepFetched(ctx, key, memory.FetchedDoc{URL: "https://example.org/big.txt", Text: "短い版"})
	if err != nil {
		t.Fatal(err)
	}
	list, err := m.FetchedFiles(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != f.ID || len(list) != 1 || list[0].Truncated {
		t.Errorf("after a refetch: id %d (was %d), %d entries %+v", again.ID, f.ID, len(list), list)
	}

	// Another conversation cannot read it; /forget removes it; the hint goes.
	if _, err := m.FetchedFile(ctx, memory.DiscordChannel("11"), f.ID); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("another conversation's read: %v, want not found", err)
	}
	msgs, err := m.Context(ctx, key, "", "それで？")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msgs[0].Content, "read_fetched_file") {
		t.Error("the system text lacks the fetched-files hint")
	}
	if _, err := m.Forget(ctx, key); err != nil {
		t.Fatal(err)
	}
	if list, _ := m.FetchedFiles(ctx, key); len(list) != 0 {
		t.Errorf("%d documents after /forget, want none", len(list))
	}
	msgs, err = m.Context(ctx, key, "", "それで？")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(msgs[0].Content, "read_fetched_file") {
		t.Error("the hint stays with no documents")
	}
}
