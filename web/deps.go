package web

import "net/http"

// Deps are the parts of yorozu the API works on. cmd/yorozu wires them; a
// nil part makes the routes that need it answer 503.
type Deps struct {
	// Jobs is River's UI, mounted under /jobs/ (riverui.Handler with prefix
	// "/jobs").
	Jobs http.Handler
}

// unavailable answers 503 naming the missing part.
func unavailable(what string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusServiceUnavailable, what+" は動いていません。")
	})
}

func (s *Server) jobsHandler() http.Handler {
	if s.opts.Deps.Jobs == nil {
		return unavailable("ジョブ画面")
	}
	return s.opts.Deps.Jobs
}
