// Package servetest holds what the fake servers of tests (llm/ollamatest,
// llm/openaicompat/openaitest) share: a loopback listener that can go down
// and come back on the same address, gates, and a deterministic embedding.
package servetest

import (
	"context"
	"hash/fnv"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Listener serves a handler on a loopback port. Down refuses connections
// (open ones are dropped); Up listens again on the same address. It is
// closed in t.Cleanup.
type Listener struct {
	t       testing.TB
	addr    string
	handler http.Handler

	mu sync.Mutex
	hs *http.Server
}

// Listen starts serving h on a free loopback port.
func Listen(t testing.TB, h http.Handler) *Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("servetest: listen: %v", err)
	}
	l := &Listener{t: t, addr: ln.Addr().String(), handler: h}
	l.serve(ln)
	t.Cleanup(l.Down)
	return l
}

func (l *Listener) serve(ln net.Listener) {
	hs := &http.Server{Handler: l.handler, ReadHeaderTimeout: 10 * time.Second}
	l.hs = hs
	go func() { _ = hs.Serve(ln) }()
}

// Addr is the host:port served.
func (l *Listener) Addr() string { return l.addr }

// Down closes the listener and drops open connections.
func (l *Listener) Down() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hs != nil {
		_ = l.hs.Close()
		l.hs = nil
	}
}

// Up listens again on the same address after Down.
func (l *Listener) Up() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hs != nil {
		return
	}
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		l.t.Fatalf("servetest: listen again on %s: %v", l.addr, err)
	}
	l.serve(ln)
}

// Wait blocks until gate is closed (nil: not at all); false when ctx
// ended first.
func Wait(ctx context.Context, gate <-chan struct{}) bool {
	if gate == nil {
		return true
	}
	select {
	case <-gate:
		return true
	case <-ctx.Done():
		return false
	}
}

// HashEmbed is a deterministic embedding: a unit vector derived from the
// input's words, so equal texts get equal vectors and texts sharing words
// are close.
func HashEmbed(_ string, input string) []float32 {
	const dims = 32
	v := make([]float32, dims)
	for _, word := range strings.Fields(strings.ToLower(input)) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(word))
		v[h.Sum32()%dims]++
	}
	var norm float64
	for _, x := range v {
		norm += float64(x * x)
	}
	if norm == 0 {
		v[0] = 1
		return v
	}
	n := float32(math.Sqrt(norm))
	for i := range v {
		v[i] /= n
	}
	return v
}
