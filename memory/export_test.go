package memory

// CacheStats reports how many context reads the cache answered and how
// many went to the database while it was on.
func CacheStats(m *Memory) (hits, misses int64) {
	return m.cache.hits.Load(), m.cache.misses.Load()
}

// CacheOn reports whether the context cache is on (its listener listens).
func CacheOn(m *Memory) bool {
	m.cache.mu.Lock()
	defer m.cache.mu.Unlock()
	return m.cache.on
}

// CacheListens counts how many times the cache's listener started
// listening.
func CacheListens(m *Memory) int64 { return m.cache.listens.Load() }

// CacheSize reports the entries the context cache holds and their
// estimated bytes.
func CacheSize(m *Memory) (entries, bytes int) {
	m.cache.mu.Lock()
	defer m.cache.mu.Unlock()
	return m.cache.lru.Len(), m.cache.bytes
}
