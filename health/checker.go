package health

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/llm"
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

// CheckerOptions are what the start-up checks look at.
type CheckerOptions struct {
	DataDir    string
	OllamaHost string // for the messages; its secrets are masked
	// OpenAIBaseURL, when set, says the server is that OpenAI-compatible
	// one (OPENAI_BASE_URL without OLLAMA_HOST); OllamaHost is then unused.
	OpenAIBaseURL string
	// Version asks Ollama its version (api.Client.Version); Capabilities
	// what a model can do (llm.Pipeline.Capabilities, cached).
	Version      func(ctx context.Context) (string, error)
	Capabilities func(ctx context.Context, model string) (llm.Capabilities, error)
	// Pool, unless it is one Ollama, is checked server by server instead of
	// through Version.
	Pool *llm.Pool
	// Setting is a setting in force by its admin page key
	// ("default_model"): the page's value, else the environment's.
	Setting    func(key string) string
	EmbedModel string
	Logger     *slog.Logger
}

// Checker runs the checks of what may be missing while yorozu runs —
// DATA_DIR, Ollama and the models in force — in the background, never in
// the way of start-up. Each change of a finding is logged once, with its
// fix; /readyz and the admin page's status show the latest round. Recheck
// (SIGHUP, a model changed on the admin page) checks again at once.
type Checker struct {
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

// NewChecker returns a Checker of what o names; Run starts it.
func NewChecker(o CheckerOptions) *Checker {
	ollama := ollamaChecker{host: config.RedactURL(o.OllamaHost), version: o.Version, capabilities: o.Capabilities}
	if o.Pool != nil {
		ollama.probeUnlessOneOllama(o.Pool)
	}
	if o.OpenAIBaseURL != "" {
		ollama.host, ollama.openAI = config.RedactURL(o.OpenAIBaseURL), true
	}
	checks := func(ctx context.Context) []finding {
		fs := []finding{checkDataDir(o.DataDir)}
		return append(fs, ollama.check(ctx, modelsInForce(o.Setting, o.EmbedModel))...)
	}
	return newChecker(checks, o.Logger)
}

func newChecker(checks func(ctx context.Context) []finding, logger *slog.Logger) *Checker {
	return &Checker{
		checks: checks, logger: logger,
		retryMin: healthRetryMin, retryMax: healthRetryMax, every: healthRecheck,
		seen: map[string]finding{}, done: make(chan struct{}), again: make(chan struct{}, 1),
	}
}

// Run checks until ctx ends.
func (h *Checker) Run(ctx context.Context) {
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

// Recheck makes Run check again now.
func (h *Checker) Recheck() {
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
func (h *Checker) record(fs []finding) {
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

// Checks are the /readyz checks of the findings. Until the first round is
// done they wait for it, within /readyz's deadline.
func (h *Checker) Checks() []web.Check {
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
