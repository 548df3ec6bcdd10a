package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
)

// KnowledgeTools are the tools whose results become knowledge entries.
var KnowledgeTools = []string{"web_search", "search_and_fetch"}

// WebKnowledgeDir is the folder under Options.KnowledgeDir that knowledge
// entries are written to, each space's in a folder of its own; entries
// from before spaces lie directly in it (db.UnfiledKnowledge).
const WebKnowledgeDir = db.UnfiledKnowledgeDir

// maxLearnInput bounds the tool result given to the model to summarise.
const maxLearnInput = 12000

var knowledgeFormat = json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"body":{"type":"string"}},"required":["title","body"]}`)

const knowledgePrompt = `あなたは調べ物の記録係です。ユーザーの検索とその結果から、後で役立つ知識を 1 件にまとめてください。
- title: 内容が分かる 40 字以内の見出し。
- body: Markdown で 600 字以内。検索結果に書かれていることだけを書き、日付や数字は正確に残します。
JSON {"title": "…", "body": "…"} だけを返します。`

// LearnLater turns a successful web_search or search_and_fetch result into a
// knowledge entry in the background (see Learn): the caller — the tool
// registry's after-hook, wired in cmd/yorozu — hands the result back to the
// model at once. Results of other tools, failures and empty results teach
// nothing and are ignored, as is everything when no model is configured. A
// full background queue drops the entry with a warning.
func (m *Memory) LearnLater(in LearnInput) {
	if m.opts.Ollama == nil || !isKnowledgeTool(in.Tool) || !learnable(in.Result) {
		return
	}
	if !m.bg.run(func(ctx context.Context) {
		if _, err := m.Learn(ctx, in); err != nil {
			m.log.Warn("knowledge from search", "tool", in.Tool, "query", in.Query, "err", err)
		}
	}) {
		m.log.Warn("memory background queue full: search result not kept as knowledge", "tool", in.Tool)
	}
}

func isKnowledgeTool(name string) bool {
	for _, t := range KnowledgeTools {
		if t == name {
			return true
		}
	}
	return false
}

// learnable: failures and empty results teach nothing.
func learnable(result string) bool {
	r := strings.TrimSpace(result)
	return r != "" && r != "[]" && !strings.HasPrefix(r, "Search failed") && !strings.HasPrefix(r, "Error")
}

// LearnInput is a tool result to turn into knowledge.
type LearnInput struct {
	Tool    string
	Query   string
	Session SessionKey
	Space   Space // the searching conversation's; empty: the default space
	Result  string
}

// Learn summarises a search result into a knowledge entry, stores it with
// its sources, writes its file and indexes it. It is what LearnLater runs.
func (m *Memory) Learn(ctx context.Context, in LearnInput) (db.KnowledgeEntry, error) {
	space, err := m.space(ctx, in.Space)
	if err != nil {
		return db.KnowledgeEntry{}, fmt.Errorf("learn from %s %q: %w", in.Tool, in.Query, err)
	}
	srcs := sources(in.Result)
	known, err := db.RecentKnowledgeFrom(ctx, m.pool, string(space), in.Query, urlsOf(srcs), m.opts.Now().Add(-knownFor))
	if err == nil {
		return known, nil // already learnt: no model call
	}
	if !errors.Is(err, db.ErrNotFound) {
		return db.KnowledgeEntry{}, fmt.Errorf("learn from %s %q: %w", in.Tool, in.Query, err)
	}
	input := in.Result
	if r := []rune(input); len(r) > maxLearnInput {
		input = string(r[:maxLearnInput])
	}
	out, err := m.complete(llm.WithSpace(llm.WithKind(ctx, llm.KindKnowledge), string(space)), knowledgePrompt, fmt.Sprintf("検索: %s\n\n結果:\n%s", in.Query, input), knowledgeFormat)
	if err != nil {
		return db.KnowledgeEntry{}, fmt.Errorf("learn from %s %q: %w", in.Tool, in.Query, err)
	}
	var v struct{ Title, Body string }
	if err := json.Unmarshal([]byte(out), &v); err != nil || strings.TrimSpace(v.Title) == "" {
		return db.KnowledgeEntry{}, fmt.Errorf("learn from %s %q: model answer is not a {title, body} object", in.Tool, in.Query)
	}
	p := db.KnowledgeParams{
		Space: string(space), Title: oneLine(v.Title, 80), Body: strings.TrimSpace(v.Body), Query: in.Query, Tool: in.Tool,
		SessionKey: string(in.Session), Sources: srcs, CreatedAt: m.opts.Now(),
	}
	var e db.KnowledgeEntry
	err = pgx.BeginFunc(ctx, m.pool, func(tx pgx.Tx) error {
		e, err = db.InsertKnowledge(ctx, tx, p)
		if err != nil || m.opts.KnowledgeDir == "" {
			return err
		}
		e.FilePath = fmt.Sprintf("%s/%s/%d-%s.md", WebKnowledgeDir, space.Dir(), e.ID, slug(e.Title))
		return db.SetKnowledgeFile(ctx, tx, e.ID, e.FilePath)
	})
	m.dropSpace(space)
	if err != nil {
		return db.KnowledgeEntry{}, fmt.Errorf("learn from %s %q: %w", in.Tool, in.Query, err)
	}
	if m.opts.KnowledgeDir == "" {
		return e, nil
	}
	content := knowledgeMarkdown(e, p.Sources, m)
	path := filepath.Join(m.opts.KnowledgeDir, filepath.FromSlash(e.FilePath))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return e, fmt.Errorf("write knowledge %d: %w", e.ID, err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return e, fmt.Errorf("write knowledge %d: %w", e.ID, err)
	}
	if err := m.indexFile(ctx, e.FilePath, content); err != nil {
		return e, fmt.Errorf("index knowledge %d (the next sync retries): %w", e.ID, err)
	}
	return e, nil
}

// knownFor is how long a search result stays known: the same query with
// the same sources within it is not summarised again.
const knownFor = 24 * time.Hour

func urlsOf(srcs []db.KnowledgeSource) []string {
	urls := make([]string, len(srcs))
	for i, s := range srcs {
		urls[i] = s.URL
	}
	return urls
}

// Knowledge returns an entry of space and its sources (read_knowledge); a
// missing id, or one of another space, wraps db.ErrNotFound.
func (m *Memory) Knowledge(ctx context.Context, space Space, id int64) (db.KnowledgeEntry, []db.KnowledgeSource, error) {
	space, err := m.space(ctx, space)
	if err != nil {
		return db.KnowledgeEntry{}, nil, err
	}
	e, srcs, err := db.KnowledgeByID(ctx, m.pool, id)
	if err == nil && e.Space != string(space) {
		return db.KnowledgeEntry{}, nil, fmt.Errorf("get knowledge %d in %s: %w", id, space, db.ErrNotFound)
	}
	return e, srcs, err
}

func knowledgeMarkdown(e db.KnowledgeEntry, srcs []db.KnowledgeSource, m *Memory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n", e.Title, e.Body)
	if len(srcs) > 0 {
		b.WriteString("\n## 出典\n\n")
		for _, s := range srcs {
			if s.Title != "" {
				fmt.Fprintf(&b, "- [%s](%s)\n", s.Title, s.URL)
			} else {
				fmt.Fprintf(&b, "- %s\n", s.URL)
			}
		}
	}
	fmt.Fprintf(&b, "\n(ウェブ検索「%s」より、%s)\n", e.Query, e.CreatedAt.In(m.opts.Location).Format("2006-01-02"))
	return b.String()
}

var urlPattern = regexp.MustCompile(`https?://[^\s"'<>()\[\]{}]+`)

// sources are the pages a result came from: the hits of a web_search JSON
// list, else the URLs it mentions; at most 10, once each.
func sources(result string) []db.KnowledgeSource {
	var hits []struct {
		Title string `json:"title"`
		Href  string `json:"href"`
	}
	var out []db.KnowledgeSource
	seen := map[string]bool{}
	add := func(url, title string) {
		url = strings.TrimRight(url, ".,;:、。")
		if url == "" || seen[url] || len(out) == 10 {
			return
		}
		seen[url] = true
		out = append(out, db.KnowledgeSource{URL: url, Title: oneLine(title, 200)})
	}
	if json.Unmarshal([]byte(result), &hits) == nil {
		for _, h := range hits {
			add(h.Href, h.Title)
		}
		return out
	}
	for _, u := range urlPattern.FindAllString(result, -1) {
		add(u, "")
	}
	return out
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max])
	}
	return s
}

// slug makes a file-name-safe form of a title, keeping Japanese letters.
func slug(title string) string {
	var b strings.Builder
	dash := false
	n := 0
	for _, r := range title {
		if n >= 40 {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			dash = false
			n++
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		s = "entry"
	}
	return s
}
