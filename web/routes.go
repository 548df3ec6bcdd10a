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

		{"GET /chat/sessions", Login, http.HandlerFunc(s.handleSessions)},
		{"POST /chat/sessions", Login, http.HandlerFunc(s.handleCreateSession)},
		{"POST /chat/sessions/import", Login, http.HandlerFunc(s.handleImport)},
		{"DELETE /chat/sessions/{id}", Login, http.HandlerFunc(s.handleDeleteSession)},
		{"GET /chat/sessions/{id}/messages", Login, http.HandlerFunc(s.handleMessages)},
		{"GET /chat/sessions/{id}/export", Login, http.HandlerFunc(s.handleExport)},
		{"GET /chat/sessions/{id}/notes", Login, s.needMemory(s.handleSessionNotes)},
		{"PUT /chat/sessions/{id}/notes", Login, s.needMemory(s.handlePutSessionNotes)},
		{"POST /chat/stream", Login, s.needChat(s.handleStream)},

		{"GET /api/spaces", Login, http.HandlerFunc(s.handleSpaces)},

		{"GET /api/notes", Login, s.needMemory(s.handleNotes)},
		{"POST /api/notes", Login, s.needMemory(s.handleCreateNote)},
		{"PATCH /api/notes/{id}", Login, s.needMemory(s.handleUpdateNote)},
		{"DELETE /api/notes/{id}", Login, s.needMemory(s.handleDeleteNote)},
		{"POST /api/notes/sections/rename", Login, s.needMemory(s.handleRenameSection)},
		{"POST /api/notes/reorder", Login, s.needMemory(s.handleReorder)},

		{"GET /api/memory", Login, http.HandlerFunc(s.handleMemory)},
		{"DELETE /api/memory/{id}", Login, s.needMemory(s.handleDeleteMemory)},
		{"GET /api/knowledge", Login, http.HandlerFunc(s.handleKnowledge)},
		{"GET /api/knowledge/{id}", Login, http.HandlerFunc(s.handleKnowledgeEntry)},
		{"DELETE /api/knowledge/{id}", Login, s.needMemory(s.handleDeleteKnowledge)},
		{"GET /api/knowledge-base", Login, s.needMemory(s.handleKnowledgeBase)},
		{"GET /api/knowledge-base/file", Login, s.needMemory(s.handleKnowledgeBaseFile)},
		{"POST /api/knowledge-base/sync", Login, s.needMemory(s.handleKnowledgeBaseSync)},

		{"GET /api/logs", Login, http.HandlerFunc(s.handleLogs)},
		{"GET /api/logs/{id}", Login, http.HandlerFunc(s.handleLog)},
		{"DELETE /api/logs/{id}", Login, http.HandlerFunc(s.handleDeleteLog)},

		{"GET /api/settings", Login, s.needSettings(s.handleSettings)},
		{"PUT /api/settings", Login, s.needSettings(s.handlePutSettings)},
		{"GET /api/models", Login, http.HandlerFunc(s.handleModels)},

		{"GET /api/models/presets", Login, http.HandlerFunc(s.handlePresets)},
		{"POST /api/models/presets", Login, http.HandlerFunc(s.handleCreatePreset)},
		{"DELETE /api/models/presets/{id}", Login, http.HandlerFunc(s.handleDeletePreset)},

		{"GET /chat/sessions/{id}/files", Login, http.HandlerFunc(s.handleSessionFiles)},
		{"GET /chat/sessions/{id}/files/{file_id}", Login, http.HandlerFunc(s.handleSessionFile)},

		{"GET /api/notes/{id}/revisions", Login, http.HandlerFunc(s.handleNoteRevisions)},
		{"POST /api/notes/{id}/revisions/{rev}/restore", Login, http.HandlerFunc(s.handleRestoreNoteRevision)},

		{"GET /api/channels", Login, http.HandlerFunc(s.handleChannels)},
		{"PUT /api/channels/{id}", Login, http.HandlerFunc(s.handlePutChannel)},
		{"DELETE /api/channels/{id}", Login, http.HandlerFunc(s.handleDeleteChannel)},
		{"PUT /api/servers/{id}", Login, http.HandlerFunc(s.handlePutServer)},
		{"DELETE /api/servers/{id}", Login, http.HandlerFunc(s.handleDeleteServer)},

		{"GET /api/reminders", Login, http.HandlerFunc(s.handleReminders)},
		{"POST /api/reminders/{id}/cancel", Login, s.needReminders(s.handleCancelReminder)},
		{"GET /api/system/word-pool", Login, http.HandlerFunc(s.handleWordPool)},
		{"POST /api/system/backfill-tags", Login, s.needMemory(s.handleBackfillTags)},

		{"/jobs/", Login, s.jobsHandler()},
	}
	return append(rs, s.opts.Pages...)
}
