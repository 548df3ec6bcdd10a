package memory

import (
	"container/list"
	"context"
	"sync"

	"github.com/yorozu-bot/yorozu/db"
)

// Default bounds of the knowledge base's text cache (Options.KBCacheFiles,
// Options.KBCacheBytes).
const (
	defaultKBCacheFiles = 1000
	defaultKBCacheBytes = 16 << 20
)

// kbIndex is the knowledge base in memory, so a turn's similarity search
// costs no more than a version query and a few hundred dot products: every
// file's vector (4 KB at 1,024 dimensions), and the texts of the files
// found lately, least recently used out past the cache's bounds (a text
// not held is read when a search finds its file). When the table changed
// (this process or another synced), only the rows whose hash or model
// changed are read again.
type kbIndex struct {
	mu      sync.Mutex
	version string
	model   string
	docs    []kbDoc // by path
	texts   textCache
	loaded  int64 // rows read from the database, for KnowledgeCache
}

type kbDoc struct {
	path, title, hash string
	vec               []float32 // unit length
}

// KBCacheStats is what the knowledge-base cache holds.
type KBCacheStats struct {
	Files     int   // files indexed (vectors held)
	Texts     int   // texts held
	TextBytes int   // bytes of the texts held
	Loaded    int64 // rows read from the database since start
}

// KnowledgeCache reports the knowledge-base cache's contents.
func (m *Memory) KnowledgeCache() KBCacheStats {
	k := &m.kb
	k.mu.Lock()
	defer k.mu.Unlock()
	return KBCacheStats{Files: len(k.docs), Texts: k.texts.order.Len(), TextBytes: k.texts.bytes, Loaded: k.loaded}
}

// kbDocs returns the index, bringing it up to date when the table changed.
func (m *Memory) kbDocs(ctx context.Context) ([]kbDoc, error) {
	version, err := db.LocalDocsVersion(ctx, m.pool)
	if err != nil {
		return nil, err
	}
	k := &m.kb
	k.mu.Lock()
	defer k.mu.Unlock()
	if version == k.version && k.model == m.opts.EmbedModel {
		return k.docs, nil
	}
	stamps, err := db.LocalDocStamps(ctx, m.pool)
	if err != nil {
		return nil, err
	}
	held := map[string]kbDoc{}
	if k.model == m.opts.EmbedModel {
		for _, d := range k.docs {
			held[d.path] = d
		}
	}
	docs := make([]kbDoc, 0, len(stamps))
	var changed []string
	for _, s := range stamps {
		if s.EmbeddingModel != m.opts.EmbedModel {
			continue
		}
		if d, ok := held[s.Path]; ok && d.hash == s.ContentHash {
			docs = append(docs, d)
			continue
		}
		changed = append(changed, s.Path)
	}
	if len(changed) > 0 {
		rows, err := db.LocalDocsByPath(ctx, m.pool, m.opts.EmbedModel, changed)
		if err != nil {
			return nil, err
		}
		k.loaded += int64(len(rows))
		for _, r := range rows {
			docs = append(docs, kbDoc{path: r.Path, title: r.Title, hash: r.ContentHash, vec: unit(r.Embedding)})
			k.texts.put(r.Path, r.ContentHash, r.Content, m.kbCacheBounds())
		}
	}
	live := make(map[string]string, len(docs)) // path -> hash
	for _, d := range docs {
		live[d.path] = d.hash
	}
	k.texts.keep(func(path, hash string) bool { return live[path] == hash })
	sortDocs(docs)
	k.docs, k.version, k.model = docs, version, m.opts.EmbedModel
	return docs, nil
}

// kbTexts returns the texts of hits' files: from the cache, the others read
// in one query. A file gone meanwhile has no text (its hit is dropped).
func (m *Memory) kbTexts(ctx context.Context, hits []kbHit) ([]kbHit, error) {
	k := &m.kb
	k.mu.Lock()
	var missing []string
	for i, h := range hits {
		if text, ok := k.texts.get(h.doc.path, h.doc.hash); ok {
			hits[i].content = text
		} else {
			missing = append(missing, h.doc.path)
		}
	}
	k.mu.Unlock()
	if len(missing) == 0 {
		return hits, nil
	}
	rows, err := db.LocalDocTexts(ctx, m.pool, missing)
	if err != nil {
		return nil, err
	}
	byPath := map[string]db.LocalDocText{}
	for _, r := range rows {
		byPath[r.Path] = r
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.loaded += int64(len(rows))
	out := hits[:0]
	for _, h := range hits {
		if h.content == "" {
			r, ok := byPath[h.doc.path]
			if !ok || r.ContentHash != h.doc.hash {
				continue // changed or gone since the index was read
			}
			h.content = r.Content
			k.texts.put(r.Path, r.ContentHash, r.Content, m.kbCacheBounds())
		}
		out = append(out, h)
	}
	return out, nil
}

func (m *Memory) kbCacheBounds() cacheBounds {
	return cacheBounds{files: m.opts.KBCacheFiles, bytes: m.opts.KBCacheBytes}
}

// textCache holds file texts by path, least recently used first out once
// it holds more than its bounds.
type textCache struct {
	order *list.List // of *cachedText, most recent first
	byKey map[string]*list.Element
	bytes int
}

type cachedText struct {
	path, hash, text string
}

type cacheBounds struct{ files, bytes int }

func (c *textCache) get(path, hash string) (string, bool) {
	e, ok := c.byKey[path]
	if !ok || e.Value.(*cachedText).hash != hash {
		return "", false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedText).text, true
}

func (c *textCache) put(path, hash, text string, b cacheBounds) {
	if c.order == nil {
		c.order, c.byKey = list.New(), map[string]*list.Element{}
	}
	if e, ok := c.byKey[path]; ok {
		c.remove(e)
	}
	if len(text) > b.bytes {
		return // bigger than the whole cache: read when found
	}
	c.byKey[path] = c.order.PushFront(&cachedText{path: path, hash: hash, text: text})
	c.bytes += len(text)
	for c.order.Len() > b.files || c.bytes > b.bytes {
		c.remove(c.order.Back())
	}
}

// keep drops the texts for which ok is false.
func (c *textCache) keep(ok func(path, hash string) bool) {
	if c.order == nil {
		return
	}
	for e := c.order.Front(); e != nil; {
		next := e.Next()
		if t := e.Value.(*cachedText); !ok(t.path, t.hash) {
			c.remove(e)
		}
		e = next
	}
}

func (c *textCache) remove(e *list.Element) {
	t := c.order.Remove(e).(*cachedText)
	delete(c.byKey, t.path)
	c.bytes -= len(t.text)
}
