package browse

import (
	"context"
	"sync/atomic"
)

// LiveSearcher is the web search backend in force; the admin page's
// settings can replace it while yorozu runs. Set it before the first
// Search.
type LiveSearcher struct {
	current atomic.Pointer[Searcher]
}

var _ Searcher = (*LiveSearcher)(nil)

// Set puts s in force for the searches that start from now on.
func (l *LiveSearcher) Set(s Searcher) { l.current.Store(&s) }

// Search asks the backend in force.
func (l *LiveSearcher) Search(ctx context.Context, query string, max int) ([]Result, error) {
	return (*l.current.Load()).Search(ctx, query, max)
}
