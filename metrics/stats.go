package metrics

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Stats sums up the recent past of this process, for the /stats command:
// what only this process can know (how long its users waited, how fast its
// model calls generated, its queue). Counts that several processes share
// (turns, tokens, reminders) are in the database.
type Stats struct {
	Window time.Duration
	// TextTurns is the number of turns that showed text; FirstTextP50 and
	// FirstTextP95 are over them (nearest rank), zero when there were none.
	TextTurns                  int
	FirstTextP50, FirstTextP95 time.Duration
	// TokensPerSecond is completion tokens over Ollama's generation time;
	// zero when nothing was generated.
	TokensPerSecond float64
	QueueLength     int
}

type turnSample struct {
	at        time.Time
	firstText time.Duration
}

type generationSample struct {
	at     time.Time
	tokens int
	took   time.Duration
}

// window keeps samples younger than span.
type window struct {
	span time.Duration

	mu          sync.Mutex
	turns       []turnSample
	generations []generationSample
}

func newWindow(span time.Duration) *window { return &window{span: span} }

func (w *window) addTurn(s turnSample) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.turns = append(dropBefore(w.turns, s.at.Add(-w.span), func(t turnSample) time.Time { return t.at }), s)
}

func (w *window) addGeneration(s generationSample) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.generations = append(dropBefore(w.generations, s.at.Add(-w.span), func(g generationSample) time.Time { return g.at }), s)
}

// dropBefore removes the leading samples older than cutoff (samples are
// appended in about time order).
func dropBefore[T any](s []T, cutoff time.Time, at func(T) time.Time) []T {
	i := 0
	for i < len(s) && at(s[i]).Before(cutoff) {
		i++
	}
	if i == 0 {
		return s
	}
	return append(s[:0], s[i:]...)
}

// Stats sums up the last hour.
func (m *Metrics) Stats() Stats {
	now := m.opts.Now()
	cutoff := now.Add(-m.window.span)
	st := Stats{Window: m.window.span, QueueLength: m.opts.QueueLength()}
	var firsts []time.Duration
	var tokens int
	var took time.Duration
	m.window.mu.Lock()
	for _, t := range m.window.turns {
		if t.at.Before(cutoff) {
			continue
		}
		firsts = append(firsts, t.firstText)
	}
	for _, g := range m.window.generations {
		if !g.at.Before(cutoff) {
			tokens += g.tokens
			took += g.took
		}
	}
	m.window.mu.Unlock()
	st.TextTurns = len(firsts)
	st.FirstTextP50 = percentile(firsts, 0.50)
	st.FirstTextP95 = percentile(firsts, 0.95)
	if took > 0 {
		st.TokensPerSecond = float64(tokens) / took.Seconds()
	}
	return st
}

// percentile is the nearest-rank percentile p (0..1) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	rank := int(math.Ceil(p*float64(len(ds)))) - 1
	return ds[min(max(rank, 0), len(ds)-1)]
}
