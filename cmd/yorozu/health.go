package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/web"
)

// How often the start-up checks run: a round with a problem is repeated
// after healthRetryMin, doubling up to healthRetryMax, so /readyz turns
// green soon after the operator pulls the model or starts Ollama; a round
// without one is repeated every healthRecheck.
const (
	healthRetryMin = time.Second
	healthRetryMax = time.Minute
	healthRecheck  = 5 * time.Minute
)

// healthGroups are the /readyz checks the start-up checks answer.
var healthGroups = []string{"data_dir", "ollama", "models"}

// health runs the checks of what may be missing while yorozu runs —
// DATA_DIR, Ollama and the models in force — in the background, never in
// the way of start-up. Each change of a finding is logged once, with its
// fix; /readyz and the admin page's status show the latest round. SIGHUP
// and a model changed on the admin page check again at once.
type health struct {
	checks   func(ctx context.Context) []finding
	logger   *slog.Logger
	retryMin time.Duration
	retryMax time.Duration
	every    time.Duration

	mu     sync.Mutex
	latest []finding
	seen   map[string]finding // by label: the state last logged
	done   chan struct{}      // closed after the first round
	again  chan struct{}
}

func newHealth(checks func(ctx context.Context) []finding, logger *slog.Logger) *health {
	return &health{
		checks: checks, logger: logger,
		retryMin: healthRetryMin, retryMax: healthRetryMax, every: healthRecheck,
		seen: map[string]finding{}, done: make(chan struct{}), again: make(chan struct{}, 1),
	}
}

// run checks until ctx ends.
func (h *health) run(ctx context.Context) {
	backoff := h.retryMin
	first := true
	for ctx.Err() == nil {
		fs := h.checks(ctx)
		if ctx.Err() != nil {
			return
		}
		h.record(fs)
		if first {
			close(h.done)
			first = false
		}
		wait := h.every
		if failing(fs) {
			wait, backoff = backoff, min(backoff*2, h.retryMax)
		} else {
			backoff = h.retryMin
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-h.again:
			backoff = h.retryMin
		case <-t.C:
		}
		t.Stop()
	}
}

// recheck makes run check again now.
func (h *health) recheck() {
	select {
	case h.again <- struct{}{}:
	default:
	}
}

func failing(fs []finding) bool {
	for _, f := range fs {
		if f.level == levelFail {
			return true
		}
	}
	return false
}

// record keeps a round's findings and logs what changed: a new problem as
// one line with its fix, a problem gone at info level. A finding absent from
// a round (the models while Ollama is down) keeps its last state, so it is
// not logged again when it comes back unchanged.
func (h *health) record(fs []finding) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.latest = fs
	for _, f := range fs {
		if f.quiet {
			continue
		}
		prev, had := h.seen[f.label]
		h.seen[f.label] = f
		switch {
		case had && prev.level == f.level && prev.code == f.code:
		case f.level == levelFail:
			h.logger.Error(oneLine(f.message), "fix", f.fix, "diagnosis", f.code)
		case f.level == levelWarn:
			h.logger.Warn(oneLine(f.message), "fix", f.fix, "diagnosis", f.code)
		case had:
			h.logger.Info(oneLine(f.message), "check", f.group, "was", prev.code)
		}
	}
}

// webChecks are the /readyz checks of the findings. Until the first round is
// done they wait for it, within /readyz's deadline.
func (h *health) webChecks() []web.Check {
	out := make([]web.Check, 0, len(healthGroups))
	for _, g := range healthGroups {
		out = append(out, web.Check{Name: g, Fn: func(ctx context.Context) error {
			select {
			case <-h.done:
			case <-ctx.Done():
				return errors.New("checking")
			}
			h.mu.Lock()
			var fs []finding
			for _, f := range h.latest {
				if f.group == g {
					fs = append(fs, f)
				}
			}
			h.mu.Unlock()
			return groupErr(fs)
		}})
	}
	return out
}

// startupChecks are serve's background checks: DATA_DIR, then Ollama and
// each model in force (the admin page may have changed them).
func (a *app) startupChecks(ctx context.Context) []finding {
	get := envSettings(a.cfg)
	if s := a.settings; s != nil {
		get = s.Get
	}
	fs := []finding{checkDataDir(a.cfg.DataDir)}
	return append(fs, a.ollamaChecker().check(ctx, modelsInForce(get, a.cfg.EmbedModel))...)
}

func (a *app) ollamaChecker() ollamaChecker {
	return ollamaChecker{host: config.RedactURL(a.cfg.OllamaHost.String()), version: a.ollama.Version, capabilities: a.llm.Capabilities}
}

// startHealth runs the start-up checks in the background, again at once on
// SIGHUP and when a model is changed on the admin page.
func (a *app) startHealth(ctx context.Context) {
	a.goSafe("start-up checks", func() { a.health.run(ctx) })
	if s := a.settings; s != nil {
		s.OnChange(func(key, _ string) {
			if strings.HasSuffix(key, "_model") {
				a.health.recheck()
			}
		})
	}
	onHangup(ctx, a.health.recheck)
}
