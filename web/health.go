package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// handleHealthz says the process is alive; it checks nothing else, so a
// supervisor restarts only a process that no longer answers.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// degraded is a check's error that names a problem without making the
// process unready.
type degraded struct{ err error }

func (d degraded) Error() string { return d.err.Error() }
func (d degraded) Unwrap() error { return d.err }

// Degraded marks a check's error as a degraded part: /readyz shows it under
// the check's name but stays ready (200). Nil stays nil.
func Degraded(err error) error {
	if err == nil {
		return nil
	}
	return degraded{err: err}
}

type readiness struct {
	Ready  bool              `json:"ready"`
	Checks map[string]string `json:"checks"`
}

// checkResult is one readiness check as the admin page shows it.
type checkResult struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Degraded is set when the check names a problem that leaves the
	// process ready (OK stays true), e.g. slash commands not registered.
	Degraded bool `json:"degraded,omitempty"`
}

// runChecks runs every check in order, each with a 2 s deadline.
func (s *Server) runChecks(ctx context.Context) []checkResult {
	out := make([]checkResult, 0, len(s.opts.Checks))
	for _, c := range s.opts.Checks {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := c.Fn(cctx)
		cancel()
		res := checkResult{Name: c.Name, OK: err == nil, Detail: "ok"}
		if err != nil {
			res.Detail = err.Error()
			res.Degraded = errors.As(err, new(degraded))
			res.OK = res.Degraded
		}
		out = append(out, res)
	}
	return out
}

// handleReadyz runs every check and answers 503 when one fails, naming it.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	res := readiness{Ready: true, Checks: make(map[string]string, len(s.opts.Checks))}
	for _, c := range s.runChecks(r.Context()) {
		res.Ready = res.Ready && c.OK
		res.Checks[c.Name] = c.Detail
	}
	w.Header().Set("Content-Type", "application/json")
	if !res.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(res)
}

// handleStatus is /readyz for the admin page's status banner: GET /api/status.
func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Checks []checkResult `json:"checks"`
	}{s.runChecks(r.Context())})
}
