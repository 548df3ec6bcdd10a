package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"riverqueue.com/riverui"
)

// JobsUI is River's job UI under /jobs/, built and started on its first
// request. Its handler, routes and background queries are start-up work and
// memory (about 0.7 MB resident) that a bot whose job page nobody opens
// never needs.
type JobsUI struct {
	// build makes the UI and starts it with ctx, the process's lifetime.
	build func(ctx context.Context) (http.Handler, error)
	log   *slog.Logger

	mu      sync.Mutex
	ctx     context.Context // set by start; nil before
	handler http.Handler    // nil until built
}

// errJobsUINotStarted answers a request that arrives before start.
var errJobsUINotStarted = errors.New("yorozu is still starting")

// JobsUI is the lazy job UI over the scheduler's River client.
func (s *Scheduler) JobsUI(logger *slog.Logger) *JobsUI {
	return &JobsUI{
		log: logger,
		build: func(ctx context.Context) (http.Handler, error) {
			h, err := riverui.NewHandler(&riverui.HandlerOpts{
				Endpoints: riverui.NewEndpoints(s.client, nil),
				Logger:    logger.With("component", "riverui"),
				Prefix:    "/jobs",
			})
			if err != nil {
				return nil, err
			}
			if err := h.Start(ctx); err != nil {
				return nil, err
			}
			return h, nil
		},
	}
}

// Start lets requests build the UI; its services stop when ctx ends.
func (j *JobsUI) Start(ctx context.Context) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ctx = ctx
}

// ServeHTTP serves the UI, building it on the first request.
func (j *JobsUI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, err := j.get()
	if err != nil {
		http.Error(w, "job UI unavailable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	h.ServeHTTP(w, r)
}

// get returns the UI, building it on the first call. A failed build is
// logged and tried again on the next request.
func (j *JobsUI) get() (http.Handler, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.handler != nil {
		return j.handler, nil
	}
	if j.ctx == nil {
		return nil, errJobsUINotStarted
	}
	h, err := j.build(j.ctx)
	if err != nil {
		j.log.Error("job UI unavailable", "err", err)
		return nil, err
	}
	j.handler = h
	return h, nil
}
