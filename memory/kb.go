package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
)

// embedInputChars bounds what of a file is embedded: bge-m3 reads 8,192
// tokens, and the start of a document says what it is about.
const embedInputChars = 6000

// embedBatch is how many files one embed request carries.
const embedBatch = 8

type kbHit struct {
	doc     kbDoc
	score   float64
	content string // the file's text, once read
}

// SyncKnowledgeBase brings the knowledge-base index in line with the **.md
// files under Options.KnowledgeDir: new and changed files (by content hash)
// and files embedded with another model than Options.EmbedModel are
// embedded again, files gone from disk leave the index. A file that fails is
// skipped and reported in the joined error; the others are synced. It is the
// kb_sync job. When it ran is kept for the admin page (KnowledgeBase).
func (m *Memory) SyncKnowledgeBase(ctx context.Context) (err error) {
	defer func() { m.noteSync(ctx, err) }()
	dir := m.opts.KnowledgeDir
	if dir == "" || m.opts.Ollama == nil {
		return nil
	}
	if err := m.moveLegacyKnowledgeFiles(ctx); err != nil {
		return fmt.Errorf("sync knowledge base %s: %w", dir, err)
	}
	files, err := markdownFiles(dir)
	if err != nil {
		return fmt.Errorf("sync knowledge base %s: %w", dir, err)
	}
	stamps, err := db.LocalDocStamps(ctx, m.pool)
	if err != nil {
		return fmt.Errorf("sync knowledge base %s: %w", dir, err)
	}
	known := make(map[string]db.LocalDocStamp, len(stamps))
	for _, s := range stamps {
		known[s.Path] = s
	}
	var todo []db.LocalDoc
	var errs []error
	onDisk := map[string]bool{}
	for _, rel := range files {
		onDisk[rel] = true
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", rel, err))
			onDisk[rel] = known[rel].Path != "" // keep the old index entry
			continue
		}
		content := strings.ToValidUTF8(string(data), "")
		sum := sha256.Sum256([]byte(content))
		hash := hex.EncodeToString(sum[:])
		if s, ok := known[rel]; ok && s.ContentHash == hash && s.EmbeddingModel == m.opts.EmbedModel {
			continue
		}
		todo = append(todo, db.LocalDoc{Path: rel, Title: docTitle(rel, content), Content: content, ContentHash: hash})
	}
	for start := 0; start < len(todo); start += embedBatch {
		batch := todo[start:min(start+embedBatch, len(todo))]
		if err := m.embedDocs(ctx, batch); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, d := range batch {
			if err := db.UpsertLocalDoc(ctx, m.pool, d); err != nil {
				errs = append(errs, err)
			}
		}
	}
	var gone []string
	for _, s := range stamps {
		if !onDisk[s.Path] {
			gone = append(gone, s.Path)
		}
	}
	if len(gone) > 0 {
		if _, err := db.DeleteLocalDocs(ctx, m.pool, gone); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sync knowledge base %s: %w", dir, err)
	}
	return nil
}

// indexFile embeds and indexes one file under KnowledgeDir now, for the
// knowledge entries written from searches.
func (m *Memory) indexFile(ctx context.Context, rel string, content string) error {
	sum := sha256.Sum256([]byte(content))
	d := []db.LocalDoc{{Path: rel, Title: docTitle(rel, content), Content: content, ContentHash: hex.EncodeToString(sum[:])}}
	if err := m.embedDocs(ctx, d); err != nil {
		return err
	}
	return db.UpsertLocalDoc(ctx, m.pool, d[0])
}

func (m *Memory) embedDocs(ctx context.Context, docs []db.LocalDoc) error {
	inputs := make([]string, len(docs))
	for i, d := range docs {
		inputs[i] = d.Content
		if utf8.RuneCountInString(inputs[i]) > embedInputChars {
			inputs[i] = string([]rune(inputs[i])[:embedInputChars])
		}
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.ModelTimeout)
	defer cancel()
	resp, err := m.opts.Ollama.Embed(ctx, &api.EmbedRequest{Model: m.opts.EmbedModel, Input: inputs})
	if err != nil {
		return fmt.Errorf("embed %s…: %w", docs[0].Path, err)
	}
	if len(resp.Embeddings) != len(docs) {
		return fmt.Errorf("embed %s…: %d embeddings for %d inputs", docs[0].Path, len(resp.Embeddings), len(docs))
	}
	for i := range docs {
		docs[i].Embedding = resp.Embeddings[i]
		docs[i].EmbeddingModel = m.opts.EmbedModel
		docs[i].UpdatedAt = time.Now()
	}
	return nil
}

// markdownFiles lists the .md files under dir, slash-separated and relative.
// A missing folder is an empty knowledge base.
func markdownFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == dir {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != dir {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && strings.EqualFold(filepath.Ext(path), ".md") {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out, err
}

// docTitle is the file's first "# " heading, else its name.
func docTitle(rel, content string) string {
	for line := range strings.Lines(content) {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok && strings.TrimSpace(t) != "" {
			return strings.TrimSpace(t)
		}
	}
	return strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
}

// startKBQuery embeds text (once per turn) while the rest of the context is
// read, and returns a function that waits for the matching files. Any
// failure means no knowledge-base layer this turn; it is logged.
func (m *Memory) startKBQuery(ctx context.Context, space Space, text string) func() []kbHit {
	if m.opts.Ollama == nil || m.opts.KnowledgeDir == "" || strings.TrimSpace(text) == "" {
		return func() []kbHit { return nil }
	}
	done := make(chan []kbHit, 1)
	go func() {
		hits, err := m.searchKB(ctx, space, text)
		if err != nil && ctx.Err() == nil { // a stopped turn is no failure
			m.log.Warn("knowledge base search: no knowledge-base layer this turn", "err", err)
		}
		done <- hits
	}()
	return func() []kbHit { return <-done }
}

func (m *Memory) searchKB(ctx context.Context, space Space, text string) ([]kbHit, error) {
	all, err := m.kbDocs(ctx)
	if err != nil {
		return nil, err
	}
	var docs []kbDoc
	for _, d := range all {
		if visibleIn(d.path, space) {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		// An empty knowledge base needs no embedding: the embedding model
		// is not even loaded next to the chat model.
		return nil, err
	}
	ectx, cancel := context.WithTimeout(ctx, m.opts.EmbedTimeout)
	defer cancel()
	resp, err := m.opts.Ollama.Embed(ectx, &api.EmbedRequest{Model: m.opts.EmbedModel, Input: text})
	if err != nil {
		return nil, fmt.Errorf("embed the user's message: %w", err)
	}
	if len(resp.Embeddings) != 1 {
		return nil, fmt.Errorf("embed the user's message: %d embeddings", len(resp.Embeddings))
	}
	q := unit(resp.Embeddings[0])
	var hits []kbHit
	for _, d := range docs {
		if len(d.vec) != len(q) {
			continue
		}
		if dot := dot(q, d.vec); dot >= KBMinScore {
			hits = append(hits, kbHit{doc: d, score: dot})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	return m.kbTexts(ctx, hits[:min(len(hits), KBTopK)])
}

// dot is the dot product of two vectors of one length. Four sums run side
// by side: one sum waits for each addition before the next, and every turn
// compares its message with every file of the knowledge base.
func dot(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i] * b[i])
		s1 += float64(a[i+1] * b[i+1])
		s2 += float64(a[i+2] * b[i+2])
		s3 += float64(a[i+3] * b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i] * b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

func sortDocs(docs []kbDoc) {
	sort.Slice(docs, func(i, j int) bool { return docs[i].path < docs[j].path })
}

func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	s := float32(1 / math.Sqrt(n))
	for i, x := range v {
		out[i] = x * s
	}
	return out
}

// SpacesKnowledgeDir is the folder under Options.KnowledgeDir whose
// sub-folders, one per server id, only that server sees.
const SpacesKnowledgeDir = "spaces"

// visibleIn reports whether space may see the knowledge-base file rel: the
// operator's files are shared, except spaces/<guild id>/ (that server only);
// web findings under web_search/<space>/ belong to their space, and files
// directly under web_search/ (from before spaces) to none until moved.
func visibleIn(rel string, space Space) bool {
	top, rest, nested := strings.Cut(rel, "/")
	switch top {
	case SpacesKnowledgeDir:
		dir, _, ok := strings.Cut(rest, "/")
		return nested && ok && space.GuildID() != "" && dir == space.GuildID()
	case WebKnowledgeDir:
		dir, _, ok := strings.Cut(rest, "/")
		return nested && ok && dir == space.Dir()
	}
	return true
}

// moveLegacyKnowledgeFiles moves the files of knowledge entries written
// before spaces (web_search/<file>) into their space's folder
// (web_search/<space>/<file>), so only that space sees them. Once every
// such entry is moved there is never one again, so the look for them (a
// scan of every entry's path) is made until a sync finds none, not on
// every sync.
func (m *Memory) moveLegacyKnowledgeFiles(ctx context.Context) error {
	if m.legacyFiled.Load() {
		return nil
	}
	entries, err := db.UnfiledKnowledge(ctx, m.pool)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		m.legacyFiled.Store(true)
		return nil
	}
	var errs []error
	for _, e := range entries {
		to := fmt.Sprintf("%s/%s/%s", WebKnowledgeDir, Space(e.Space).Dir(), path.Base(e.FilePath))
		from := filepath.Join(m.opts.KnowledgeDir, filepath.FromSlash(e.FilePath))
		dst := filepath.Join(m.opts.KnowledgeDir, filepath.FromSlash(to))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Rename(from, dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("move knowledge %d: %w", e.ID, err))
			continue
		}
		if err := db.SetKnowledgeFile(ctx, m.pool, e.ID, to); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
