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

// handleReadyz runs every check and answers 503 when one fails, naming it.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	res := readiness{Ready: true, Checks: make(map[string]string, len(s.opts.Checks))}
	for _, c := range s.opts.Checks {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		err := c.Fn(ctx)
		cancel()
		if err != nil {
			res.Ready = false
			res.Checks[c.Name] = err.Error()
			continue
		}
		res.Checks[c.Name] = "ok"
	}
	w.Header().Set("Content-Type", "application/json")
	if !res.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(res)
}
