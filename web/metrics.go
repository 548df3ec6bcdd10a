package web

import "net/http"

// handleMetrics serves the Prometheus registry cmd/yorozu built.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if s.opts.Metrics == nil {
		http.NotFound(w, r)
		return
	}
	s.opts.Metrics.ServeHTTP(w, r)
}
