package memory

import (
	"container/list"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/yorozu-bot/yorozu/db"
)

// Defaults of the context cache (Options.ContextCache, ContextCacheBytes).
const (
	// DefaultContextCache is how many conversations' context reads the
	// cache holds when it is on.
	DefaultContextCache = 256
	// defaultContextCacheBytes bounds what those reads take in memory: a
	// busy conversation's entry is some 20–60 KB (its recent messages, the
	// space's notes index and headings, linked pages).
	defaultContextCacheBytes = 4 << 20
)

// contextReads is what Context reads from the database for one
// conversation, space and speaker. A stored value is never changed: a
// change makes a new one.
type contextReads struct {
	history   []db.Message // the recent messages, already cut to MaxChars
	summaries []db.Memory
	headings  []db.KnowledgeHeading
	notes     []db.NoteIndexItem
	linked    []db.NotePage
	facts     []db.MemberFact
	fetched   bool
	// layers are built from the reads once, shared by the values made
	// from this one (which differ in their history only).
	layers *readLayers
}

// readLayers are the layers that depend on the reads alone (and the
// Memory's options): a cached conversation's turn does not build them again.
type readLayers struct {
	once                               sync.Once
	built                              atomic.Bool
	headings, notes, linked, summaries layer
}

func newContextReads() *contextReads { return &contextReads{layers: &readLayers{}} }

// layersOf returns r's layers, building them on first use.
func (m *Memory) layersOf(r *contextReads) *readLayers {
	l := r.layers
	l.once.Do(func() {
		l.headings = m.headingsLayer(r.headings)
		l.notes = notesLayer(r.notes)
		l.linked = linkedLayer(r.linked)
		l.summaries = m.summariesLayer(r.summaries)
		l.built.Store(true)
	})
	return l
}

// size estimates the bytes r holds.
func (r *contextReads) size() int {
	n := int(unsafe.Sizeof(*r))
	for _, h := range r.history {
		n += int(unsafe.Sizeof(h)) + len(h.Role) + len(h.AuthorID) + len(h.AuthorName) + len(h.Content) + len(h.PlatformMessageID) + len(h.Model)
	}
	for _, s := range r.summaries {
		n += int(unsafe.Sizeof(s)) + len(s.Content)
	}
	for _, h := range r.headings {
		n += int(unsafe.Sizeof(h)) + len(h.Title)
	}
	for _, it := range r.notes {
		n += int(unsafe.Sizeof(it)) + len(it.Title) + len(it.Section) + len(it.Head)
	}
	for _, p := range r.linked {
		n += int(unsafe.Sizeof(p)) + len(p.Space) + len(p.Title) + len(p.Content) + len(p.Section)
	}
	for _, f := range r.facts {
		n += int(unsafe.Sizeof(f)) + len(f.Space) + len(f.UserID) + len(f.UserName) + len(f.Content)
	}
	if l := r.layers; l.built.Load() {
		for _, ly := range []*layer{&l.headings, &l.notes, &l.linked, &l.summaries} {
			n += len(ly.title) + 24*len(ly.items) + 8*len(ly.tokens)
			for _, it := range ly.items {
				n += len(it)
			}
		}
	}
	return n
}

// names reports whether r holds rows of session id: a conversation whose
// summaries change had messages or summaries to read.
func (r *contextReads) names(id int64) bool {
	return slices.ContainsFunc(r.history, func(h db.Message) bool { return h.SessionID == id }) ||
		slices.ContainsFunc(r.summaries, func(s db.Memory) bool { return s.SessionID == id })
}

// cacheKey names one cached read: a conversation seen from a space, with a
// speaker's facts ("" none).
type cacheKey struct {
	key     SessionKey
	space   Space
	speaker string
}

// ctxCache keeps Context's database reads of recently active conversations,
// least recently used out first, bounded in entries and bytes. It is on only
// while this process hears every change (the listener of context changes
// is up); otherwise it holds nothing and every Context reads the database.
//
// Changes come in three ways: a notice from the database (any process, any
// code path), an in-process write that drops what it changed at once, and
// this process's own turns, applied in place (their notices are skipped).
// A read that was under way when its entry was dropped is not kept (the
// fill is marked stale), so a read that raced a change never outlives it.
type ctxCache struct {
	maxEntries, maxBytes int

	mu      sync.Mutex
	on      bool
	lru     list.List // of *cacheEntry, most recently used first
	entries map[cacheKey]*list.Element
	bytes   int
	fills   map[*cacheFill]struct{} // reads under way

	hits, misses atomic.Int64
	listens      atomic.Int64 // times it was turned on
}

type cacheEntry struct {
	k    cacheKey
	r    *contextReads
	size int
}

// cacheFill is one read from the database under way, to be kept when it
// is done unless something it read changed meanwhile.
type cacheFill struct {
	k     cacheKey
	stale bool
	// turns are this process's turns stored meanwhile: the read may or may
	// not have seen them, so they are merged in (by id) before it is kept.
	turns []db.Message
}

func newCtxCache(entries, bytes int) *ctxCache {
	return &ctxCache{maxEntries: entries, maxBytes: bytes,
		entries: map[cacheKey]*list.Element{}, fills: map[*cacheFill]struct{}{}}
}

// get returns the cached reads of k, or a fill to keep the database's
// answer with (nil, nil while the cache is off).
func (c *ctxCache) get(k cacheKey) (*contextReads, *cacheFill) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on {
		return nil, nil
	}
	if el, ok := c.entries[k]; ok {
		c.lru.MoveToFront(el)
		c.hits.Add(1)
		return el.Value.(*cacheEntry).r, nil
	}
	c.misses.Add(1)
	f := &cacheFill{k: k}
	c.fills[f] = struct{}{}
	return nil, f
}

// put keeps r, the answer of fill f, unless it went stale; it returns r as
// kept (with this process's turns stored meanwhile merged in).
func (c *ctxCache) put(f *cacheFill, r *contextReads, maxMessages, maxChars int) *contextReads {
	if f == nil {
		return r
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.fills, f)
	if !c.on || f.stale {
		return r
	}
	if len(f.turns) > 0 {
		r = r.withStored(f.turns, maxMessages, maxChars)
	}
	c.store(f.k, r)
	return r
}

// abandon forgets fill f, whose read failed.
func (c *ctxCache) abandon(f *cacheFill) {
	if f == nil {
		return
	}
	c.mu.Lock()
	delete(c.fills, f)
	c.mu.Unlock()
}

// store puts r under k (c.mu held), evicting the least recently used.
func (c *ctxCache) store(k cacheKey, r *contextReads) {
	if el, ok := c.entries[k]; ok {
		c.remove(el)
	}
	e := &cacheEntry{k: k, r: r, size: r.size()}
	if e.size > c.maxBytes {
		return
	}
	c.entries[k] = c.lru.PushFront(e)
	c.bytes += e.size
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

func (c *ctxCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.entries, e.k)
	c.bytes -= e.size
}

// drop removes the entries match selects and spoils the reads of them
// under way (for which match gets nil reads); it returns the keys of the
// entries removed.
func (c *ctxCache) drop(match func(cacheKey, *contextReads) bool) []cacheKey {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var dropped []cacheKey
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*cacheEntry); match(e.k, e.r) {
			dropped = append(dropped, e.k)
			c.remove(el)
		}
		el = next
	}
	for f := range c.fills {
		if match(f.k, nil) {
			f.stale = true
		}
	}
	return dropped
}

// setOn turns the cache on or off; either way it starts empty, and reads
// under way are not kept.
func (c *ctxCache) setOn(on bool) {
	if c == nil {
		return
	}
	c.drop(func(cacheKey, *contextReads) bool { return true })
	c.mu.Lock()
	c.on = on
	c.mu.Unlock()
	if on {
		c.listens.Add(1)
	}
}

// applyTurn adds the stored rows of a turn of conversation key to its
// entries, and to the reads of it under way.
func (c *ctxCache) applyTurn(key SessionKey, rows []db.Message, maxMessages, maxChars int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; el = el.Next() {
		e := el.Value.(*cacheEntry)
		if e.k.key != key {
			continue
		}
		e.r = e.r.withStored(rows, maxMessages, maxChars)
		size := e.r.size()
		c.bytes += size - e.size
		e.size = size
	}
	for f := range c.fills {
		if f.k.key == key {
			f.turns = append(f.turns, rows...)
		}
	}
	for c.bytes > c.maxBytes && c.lru.Len() > 0 {
		c.remove(c.lru.Back())
	}
}

// setReplyIDs records, in the entries of conversation key, the platform
// ids of the stored answers ids.
func (c *ctxCache) setReplyIDs(key SessionKey, ids []int64, platformIDs string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; el = el.Next() {
		e := el.Value.(*cacheEntry)
		if e.k.key != key || !slices.ContainsFunc(e.r.history, func(h db.Message) bool { return slices.Contains(ids, h.ID) }) {
			continue
		}
		r := *e.r
		r.history = slices.Clone(r.history)
		for i, h := range r.history {
			if slices.Contains(ids, h.ID) {
				r.history[i].PlatformMessageID = platformIDs
			}
		}
		e.r = &r
		size := r.size()
		c.bytes += size - e.size
		e.size = size
	}
	for f := range c.fills {
		if f.k.key == key {
			f.stale = true
		}
	}
}

// withStored returns r with the stored messages rows among its history
// (those it holds already left out), cut as the database read would be.
func (r *contextReads) withStored(rows []db.Message, maxMessages, maxChars int) *contextReads {
	history := slices.Clone(r.history)
	for _, row := range rows {
		if !slices.ContainsFunc(history, func(h db.Message) bool { return h.ID == row.ID }) {
			history = append(history, row)
		}
	}
	out := *r
	out.history = recentCut(history, maxMessages, maxChars)
	return &out
}

// recentCut orders messages as the database reads them (by time, then
// id; a message not yet stored, id 0, after the stored ones of its time)
// and keeps the newest maxMessages, then cuts them to maxChars.
func recentCut(ms []db.Message, maxMessages, maxChars int) []db.Message {
	slices.SortStableFunc(ms, func(a, b db.Message) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		switch {
		case a.ID == b.ID:
			return 0
		case a.ID == 0:
			return 1
		case b.ID == 0:
			return -1
		case a.ID < b.ID:
			return -1
		}
		return 1
	})
	if len(ms) > maxMessages {
		ms = ms[len(ms)-maxMessages:]
	}
	return trimToChars(ms, maxChars)
}

// storedTime is t as the database keeps it: UTC, whole microseconds.
func storedTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
