package web

import "net/http"

// Access says who may call a route.
type Access int

// Access levels. Every route but the Open ones needs a live admin session;
// every write (POST, PUT, PATCH, DELETE) on them also needs X-CSRF-Token.
const (
	// Login routes answer 401 without a session (JSON API, SSE, River UI).
	Login Access = iota
	// Page routes redirect to /login without a session.
	Page
	// Open routes need nothing: the login page and its assets, login itself,
	// health checks.
	Open
	// Metrics is Login unless Options.MetricsPublic.
	Metrics
)

// Route is one endpoint. All routes are registered by mux through the same
// middleware chain, so a route cannot skip the login or the CSRF check.
type Route struct {
	// Pattern is a ServeMux pattern with its method, e.g. "GET /api/notes".
	// A pattern without a method (a subtree such as "/jobs/") is for
	// handlers that route themselves; writes on it still need the CSRF header.
	Pattern string
	Access  Access
	Handler http.Handler
}

// Routes is the route table: every endpoint of the server, the pages
// included. To add an endpoint, add a line here.
func (s *Server) Routes() []Route {
	rs := []Route{
		{"GET /healthz", Open, http.HandlerFunc(s.handleHealthz)},
		{"GET /readyz", Open, http.HandlerFunc(s.handleReadyz)},
		{"GET /metrics", Metrics, http.HandlerFunc(s.handleMetrics)},

		{"POST /api/login", Open, http.HandlerFunc(s.handleLogin)},
		{"GET /api/me", Login, http.HandlerFunc(s.handleMe)},
		{"POST /api/logout", Login, http.HandlerFunc(s.handleLogout)},
		{"GET /api/status", Login, http.HandlerFunc(s.handleStatus)},

		{"GET /api/models/presets", Login, http.HandlerFunc(s.handlePresets)},
		{"POST /api/models/presets", Login, http.HandlerFunc(s.handleCreatePreset)},
		{"DELETE /api/models/presets/{id}", Login, http.HandlerFunc(s.handleDeletePreset)},

		{"GET /chat/sessions/{id}/files", Login, http.HandlerFunc(s.handleSessionFiles)},
		{"GET /chat/sessions/{id}/files/{file_id}", Login, http.HandlerFunc(s.handleSessionFile)},

		{"GET /api/notes/{id}/revisions", Login, http.HandlerFunc(s.handleNoteRevisions)},
		{"POST /api/notes/{id}/revisions/{rev}/restore", Login, http.HandlerFunc(s.handleRestoreNoteRevision)},

		{"/jobs/", Login, s.jobsHandler()},
	}
	return append(rs, s.opts.Pages...)
}
