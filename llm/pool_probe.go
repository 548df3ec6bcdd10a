package llm

import (
	"context"
	"errors"
)

// versioner is a Backend that tells its version (Ollama's /api/version).
type versioner interface {
	Version(ctx context.Context) (string, error)
}

// Version is the version of the pool's first server, for the start-up
// checks of a pool of one Ollama.
func (p *Pool) Version(ctx context.Context) (string, error) {
	v, ok := p.servers[0].Backend.(versioner)
	if !ok {
		return "", errors.New("the server does not tell its version")
	}
	return v.Version(ctx)
}

// Probe lists every server's models now (taking out those that fail,
// putting back those that answer) and returns the servers' status.
func (p *Pool) Probe(ctx context.Context) []ServerStatus {
	p.Refresh(ctx)
	return p.Status()
}
