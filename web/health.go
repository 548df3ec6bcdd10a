package web

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// handleHealthz says the process is alive; it checks nothing else, so a
// supervisor restarts only a process that no longer answers.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
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
