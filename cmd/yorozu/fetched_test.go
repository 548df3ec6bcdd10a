package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// fileSite is a small web site of documents that counts its requests.
type fileSite struct {
	*httptest.Server
	hits atomic.Int32
	csv  string
	big  string
}

func newFileSite(t *testing.T) *fileSite {
	t.Helper()
	s := &fileSite{}
	var b strings.Builder
	b.WriteString("year,prefecture,population\n")
	for y := 2000; y <= 2024; y++ {
		for _, p := range []string{"東京都", "大阪府", "北海道", "福岡県", "愛知県", "沖縄県", "京都府", "兵庫県",
			"宮城県", "広島県", "静岡県", "新潟県", "長野県", "岐阜県", "三重県", "滋賀県", "奈良県", "熊本県",
			"鹿児島県", "岡山県", "山口県", "愛媛県", "香川県", "高知県"} {
			fmt.Fprintf(&b, "%d,%s,%d\n", y, p, 1_000_000+y*37+len(p)*1000)
		}
	}
	s.csv = b.String()
	s.big = strings.Repeat("これは長い長い文書の一行です。Lorem ipsum dolor sit amet.\n", 5<<20/80)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		switch r.URL.Path {
		case "/stats/population.csv":
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			w.Write([]byte(s.csv))
		case "/big.txt":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write([]byte(s.big))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

var (
	nextTokenRe = regexp.MustCompile(`next_token: (\S+)`)
	fileIDRe    = regexp.MustCompile(`file_id (\d+): `)
)

// TestFetchedFilesStayWithTheConversation: a CSV found by search_and_fetch
// in turn 1 is listed in turn 3 and read back whole, page by page, without
// another request to the site; another conversation sees none of it; a 5 MB
// text is kept cut at 2 MB and says so.
func TestFetchedFilesStayWithTheConversation(t *testing.T) {
	site := newFileSite(t)
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query":"q","results":[{"title":"都道府県別人口","url":"%s/stats/population.csv","content":"CSV"}]}`, site.URL)
	}))
	defer searx.Close()
	h := start(t, map[string]string{
		"SEARCH_BACKEND":  "searxng",
		"SEARXNG_URL":     searx.URL,
		"FETCH_ALLOWLIST": strings.TrimPrefix(site.URL, "http://"),
	})

	// Turn 3's model lists the files, then reads the CSV until the footer
	// says there is no more, then answers with what it read.
	var mu sync.Mutex
	var read strings.Builder
	var listed string
	turn, reads := 0, 0
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "user" {
			turn++
		}
		switch {
		case turn == 1 && last.Role == "user":
			return ollamatest.ToolCalls(ollamatest.Call("search_and_fetch", map[string]any{"query": "都道府県別人口", "file_type": "csv"}))
		case turn == 2 && last.Role == "user":
			return ollamatest.ToolCalls(ollamatest.Call("scrape_url", map[string]any{"url": site.URL + "/big.txt"}))
		case turn == 3 && last.Role == "user":
			return ollamatest.ToolCalls(ollamatest.Call("list_fetched_files", map[string]any{}))
		case turn == 3 && strings.Contains(last.Content, "fetched file(s)"):
			listed = last.Content
			m := fileIDRe.FindAllStringSubmatch(listed, -1)
			id := m[len(m)-1][1] // the oldest: the CSV
			return ollamatest.ToolCalls(ollamatest.Call("read_fetched_file", map[string]any{"file_id": id}))
		case turn == 3 && last.Role == "tool":
			reads++
			text := last.Content
			if i := strings.Index(text, "\n---page-info---"); i >= 0 {
				text = text[:i]
			}
			if j := strings.Index(text, "\n\nyear,"); read.Len() == 0 && j >= 0 {
				text = text[j+2:] // the header block of the first page
			}
			read.WriteString(text)
			if m := nextTokenRe.FindStringSubmatch(last.Content); m != nil {
				return ollamatest.ToolCalls(ollamatest.Call("read_fetched_file", map[string]any{"file_id": 0, "continue_from": m[1]}))
			}
			return ollamatest.Text("2019年の行を読みました。")
		case turn == 4 && last.Role == "user":
			return ollamatest.ToolCalls(ollamatest.Call("list_fetched_files", map[string]any{}))
		case turn == 4 && strings.HasPrefix(last.Content, "No files"):
			return ollamatest.ToolCalls(ollamatest.Call("read_fetched_file", map[string]any{"file_id": 1}))
		case turn == 4:
			return ollamatest.Text("見つかりません。")
		}
		return ollamatest.Text("はい。")
	})

	h.mention(aliceID, "都道府県別人口のCSVを探して")
	h.waitReply(t, 1, equals("はい。"))
	hitsAfterFetch := site.hits.Load()
	h.mention(aliceID, "この長い文書も読んで")
	h.waitReply(t, 2, equals("はい。"))
	hitsAfterFetch2 := site.hits.Load()
	if hitsAfterFetch != 1 || hitsAfterFetch2 != 2 {
		t.Fatalf("site hits %d then %d, want 1 then 2", hitsAfterFetch, hitsAfterFetch2)
	}

	h.mention(aliceID, "そのCSVの2019年の行は？")
	h.waitReply(t, 3, equals("2019年の行を読みました。"))
	if n := site.hits.Load(); n != hitsAfterFetch2 {
		t.Errorf("turn 3 made %d new requests to the site, want none", n-hitsAfterFetch2)
	}
	mu.Lock()
	gotRead, gotListed, gotReads := read.String(), listed, reads
	mu.Unlock()
	if gotReads < 2 {
		t.Errorf("the CSV came back in %d read_fetched_file page(s), want it paged", gotReads)
	}
	if !strings.Contains(gotListed, site.URL+"/stats/population.csv") || !strings.Contains(gotListed, "都道府県別人口") ||
		!strings.Contains(gotListed, "text cut at 2 MB") {
		t.Errorf("list_fetched_files =\n%s", gotListed)
	}
	if pages := strings.Count(gotRead, "year,"); pages != 1 {
		t.Errorf("the header row was read %d times", pages)
	}
	if strings.TrimRight(gotRead, "\n") != strings.TrimRight(site.csv, "\n") {
		t.Errorf("read back %d bytes, want the CSV's %d; starts %q", len(gotRead), len(site.csv), gotRead[:min(len(gotRead), 80)])
	}
	// Turn 3 was told the documents can be reread.
	turns := h.turns()
	var third api.ChatRequest
	for _, r := range turns {
		if r.Messages[len(r.Messages)-1].Content == "そのCSVの2019年の行は？" {
			third = r
		}
	}
	if len(third.Messages) == 0 || !strings.Contains(third.Messages[0].Content, "read_fetched_file") {
		t.Errorf("turn 3's system text lacks the fetched-files hint")
	}

	// The big text is kept cut at 2 MB, marked.
	var size int
	var truncated bool
	if err := h.pool.QueryRow(context.Background(),
		`SELECT octet_length(content), truncated FROM fetched_files WHERE url LIKE '%/big.txt'`).Scan(&size, &truncated); err != nil {
		t.Fatal(err)
	}
	if !truncated || size > 2<<20 || size < 2<<20-4096 {
		t.Errorf("big text kept as %d bytes (truncated=%v), want cut at 2 MB", size, truncated)
	}

	// Another channel: nothing listed, and the CSV's id is not found.
	const other = "200000000000000099"
	h.discord.AddChannel(other)
	h.discord.SendMessage(&discordgo.Message{
		ChannelID: other, GuildID: guildID, Content: "<@" + h.discord.BotID() + "> さっきのCSVは？",
		Author:   &discordgo.User{ID: bobID, Username: "bob"},
		Mentions: []*discordgo.User{{ID: h.discord.BotID(), Username: "yorozu", Bot: true}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool {
		msgs := h.discord.BotMessages(other)
		return len(msgs) == 1 && msgs[0].Content == "見つかりません。"
	}); err != nil {
		t.Fatalf("no answer in the other channel: %v", err)
	}
	var listOther, readOther string
	for _, r := range h.turns() {
		for i, m := range r.Messages {
			if m.Role != "tool" || i == 0 {
				continue
			}
			if strings.HasPrefix(m.Content, "No files have been fetched") {
				listOther = m.Content
			}
			if strings.HasPrefix(m.Content, "Fetched file 1 not found") {
				readOther = m.Content
			}
		}
	}
	if listOther == "" || readOther == "" {
		t.Errorf("the other conversation saw the files: list %q, read %q", listOther, readOther)
	}
}
