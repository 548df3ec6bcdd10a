package llm

import (
	"context"
	"errors"
	"fmt"

	"github.com/yorozu-bot/yorozu/config"
)

// NewPoolFrom builds the pool of the configured servers (MODEL_SERVERS, or
// the one of OLLAMA_HOST), making each server's Backend with build. A
// server's lease key is its URL without credentials or query, so
// processes share a server's slots however they name it.
func NewPoolFrom(servers []config.ModelServer, build func(config.ModelServer) (Backend, error), o PoolOptions) (*Pool, error) {
	o.Servers = nil
	for _, s := range servers {
		b, err := build(s)
		if err != nil {
			return nil, fmt.Errorf("model server %s: %w", s.Name, err)
		}
		key := *s.URL
		key.User, key.RawQuery = nil, ""
		o.Servers = append(o.Servers, PoolServer{Name: s.Name, Kind: s.Kind, Key: key.String(), Backend: b, Slots: s.Slots})
	}
	return NewPool(o), nil
}

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
