package browse

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/fetch"
	"github.com/yorozu-bot/yorozu/tools/page/pagetest"
)

// memKeeper keeps documents in a map, per conversation.
type memKeeper struct {
	mu   sync.Mutex
	docs map[string][]KeptDoc
	next int64
}

var _ Keeper = (*memKeeper)(nil)

func (k *memKeeper) Keep(_ context.Context, c tools.Caller, d KeptDoc) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, old := range k.docs[c.Session] {
		if old.URL == d.URL {
			d.ID = old.ID
			k.docs[c.Session][i] = d
			return
		}
	}
	k.next++
	d.ID = k.next
	k.docs[c.Session] = append(k.docs[c.Session], d)
}

func (k *memKeeper) List(_ context.Context, session string) ([]KeptDoc, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []KeptDoc
	for _, d := range k.docs[session] {
		d.Text = ""
		out = append([]KeptDoc{d}, out...)
	}
	return out, nil
}

func (k *memKeeper) Get(_ context.Context, session string, id int64) (KeptDoc, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, d := range k.docs[session] {
		if d.ID == id {
			return d, true, nil
		}
	}
	return KeptDoc{}, false, nil
}

func TestKeptDocuments(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	keeper := &memKeeper{docs: map[string][]KeptDoc{}}
	b, err := NewBrowser(Deps{Fetcher: e.b.deps.Fetcher, Searcher: e.search, Signer: e.signer, Keeper: keeper})
	if err != nil {
		t.Fatal(err)
	}
	alice := tools.WithCaller(context.Background(), tools.Caller{Session: "discord:channel:1"})
	bob := tools.WithCaller(context.Background(), tools.Caller{Session: "discord:channel:2"})

	// Each tool keeps what it fetched; continuing a page keeps nothing new.
	first := b.Scrape(alice, e.url("/long.html"), 1000, "")
	_, more, token := pagetest.ParseFooter(first)
	if !more {
		t.Fatal("long page came in one part")
	}
	b.Scrape(alice, "", 1000, token)
	b.PDF(alice, e.url("/doc.pdf"), 0, "")
	b.Scrape(alice, e.url("/data.csv"), 0, "")
	b.Scrape(context.Background(), e.url("/short.html"), 0, "") // no conversation: not kept
	if n := len(keeper.docs["discord:channel:1"]); n != 3 {
		t.Fatalf("%d documents kept, want 3 (page, PDF, CSV)", n)
	}
	b.Scrape(alice, e.url("/data.csv"), 0, "") // the same URL again: the same entry
	if n := len(keeper.docs["discord:channel:1"]); n != 3 {
		t.Fatalf("%d documents after fetching one again, want 3", n)
	}

	list := b.ListKept(alice)
	for _, want := range []string{"3 fetched file(s)", "file_id 2: doc.pdf", "| pdf,", e.url("/data.csv")} {
		if !strings.Contains(list, want) {
			t.Errorf("list lacks %q:\n%s", want, list)
		}
	}
	if got := b.ListKept(bob); !strings.HasPrefix(got, "No files have been fetched") {
		t.Errorf("another conversation's list = %q", got)
	}

	// The PDF reads back whole across pages, with its page markers.
	pages := walk(t, b.ReadKept(alice, 2, 300, ""), func(tok string) string { return b.ReadKept(alice, 0, 300, tok) })
	if len(pages) < 2 {
		t.Fatalf("PDF read back in %d part(s), want several", len(pages))
	}
	joined := strings.Join(pages, "")
	if !strings.Contains(joined, "--- page 1 ---") || !strings.Contains(joined, "--- page 4 ---") {
		t.Errorf("read back lacks page markers:\n%s", joined)
	}

	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"another conversation's id", b.ReadKept(bob, 2, 0, ""), "Fetched file 2 not found in this conversation"},
		{"unknown id", b.ReadKept(alice, 99, 0, ""), "Fetched file 99 not found"},
		{"no id", b.ReadKept(alice, 0, 0, ""), "Invalid file_id"},
		{"forged token", b.ReadKept(alice, 0, 0, "v1.forged.token"), "Invalid continuation token"},
		{"another conversation's token", b.ReadKept(bob, 0, 300, tokenOf(t, b.ReadKept(alice, 2, 300, ""))), "Invalid continuation token: token belongs to another conversation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.HasPrefix(tc.got, tc.want) {
				t.Errorf("got %q, want it to start with %q", tc.got, tc.want)
			}
		})
	}
}

func tokenOf(t *testing.T, res string) string {
	t.Helper()
	_, more, token := pagetest.ParseFooter(res)
	if !more {
		t.Fatalf("no next token in %q", res)
	}
	return token
}
