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

// routes is the route table: every endpoint of the server, the pages
// included. To add an endpoint, add a line here.
func (s *Server) routes() []Route {
	p := s.opts.Deps.parts()
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
		{"PATCH /chat/sessions/{id}", Login, http.HandlerFunc(s.handleRenameSession)},
		{"GET /chat/sessions/{id}/messages", Login, http.HandlerFunc(s.handleMessages)},
		{"GET /chat/sessions/{id}/export", Login, http.HandlerFunc(s.handleExport)},
		{"GET /chat/sessions/{id}/notes", Login, need(s.handleSessionNotes, p.memory)},
		{"PUT /chat/sessions/{id}/notes", Login, need(s.handlePutSessionNotes, p.memory)},
		{"POST /chat/stream", Login, need(s.handleStream, p.chat, p.memory)},
		{"GET /chat/sessions/{id}/live", Login, http.HandlerFunc(s.handleLive)},
		{"POST /chat/sessions/{id}/stop", Login, http.HandlerFunc(s.handleStop)},
		{"POST /chat/sessions/{id}/branches", Login, http.HandlerFunc(s.handleSwitchBranch)},
		{"GET /api/search", Login, http.HandlerFunc(s.handleSearch)},

		{"GET /api/spaces", Login, http.HandlerFunc(s.handleSpaces)},
		{"GET /api/names", Login, http.HandlerFunc(s.handleNames)},

		{"GET /api/notes", Login, need(s.handleNotes, p.memory)},
		{"POST /api/notes", Login, need(s.handleCreateNote, p.memory)},
		{"PATCH /api/notes/{id}", Login, need(s.handleUpdateNote, p.memory)},
		{"DELETE /api/notes/{id}", Login, need(s.handleDeleteNote, p.memory)},
		{"POST /api/notes/sections/rename", Login, need(s.handleRenameSection, p.memory)},
		{"POST /api/notes/reorder", Login, need(s.handleReorder, p.memory)},

		{"GET /api/memory", Login, http.HandlerFunc(s.handleMemory)},
		{"DELETE /api/memory/{id}", Login, need(s.handleDeleteMemory, p.memory)},
		{"GET /api/knowledge", Login, http.HandlerFunc(s.handleKnowledge)},
		{"GET /api/knowledge/{id}", Login, http.HandlerFunc(s.handleKnowledgeEntry)},
		{"DELETE /api/knowledge/{id}", Login, need(s.handleDeleteKnowledge, p.memory)},
		{"GET /api/knowledge-base", Login, need(s.handleKnowledgeBase, p.memory)},
		{"GET /api/knowledge-base/file", Login, need(s.handleKnowledgeBaseFile, p.memory)},
		{"POST /api/knowledge-base/sync", Login, need(s.handleKnowledgeBaseSync, p.memory)},

		{"GET /api/logs", Login, http.HandlerFunc(s.handleLogs)},
		{"GET /api/logs/{id}", Login, http.HandlerFunc(s.handleLog)},
		{"DELETE /api/logs/{id}", Login, http.HandlerFunc(s.handleDeleteLog)},

		{"GET /api/settings", Login, need(s.handleSettings, p.settings)},
		{"PUT /api/settings", Login, need(s.handlePutSettings, p.settings)},
		{"GET /api/models", Login, http.HandlerFunc(s.handleModels)},
		{"GET /api/model-servers", Login, http.HandlerFunc(s.handleModelServers)},

		{"GET /api/models/presets", Login, http.HandlerFunc(s.handlePresets)},
		{"POST /api/models/presets", Login, http.HandlerFunc(s.handleCreatePreset)},
		{"DELETE /api/models/presets/{id}", Login, http.HandlerFunc(s.handleDeletePreset)},

		{"GET /chat/sessions/{id}/files", Login, http.HandlerFunc(s.handleSessionFiles)},
		{"GET /chat/sessions/{id}/files/{file_id}", Login, http.HandlerFunc(s.handleSessionFile)},

		{"GET /api/notes/{id}/revisions", Login, need(s.handleNoteRevisions, p.revisions)},
		{"POST /api/notes/{id}/revisions/{rev}/restore", Login, need(s.handleRestoreNoteRevision, p.revisions)},

		{"GET /api/channels", Login, http.HandlerFunc(s.handleChannels)},
		{"PUT /api/channels/{id}", Login, http.HandlerFunc(s.handlePutChannel)},
		{"DELETE /api/channels/{id}", Login, http.HandlerFunc(s.handleDeleteChannel)},
		{"GET /api/channel-logs", Login, http.HandlerFunc(s.handleChannelLogs)},
		{"PUT /api/channel-logs/{guild}/{channel}", Login, http.HandlerFunc(s.handlePutChannelLog)},
		{"DELETE /api/channel-logs/{guild}/{channel}", Login, http.HandlerFunc(s.handleDeleteChannelLog)},
		{"PUT /api/servers/{id}", Login, http.HandlerFunc(s.handlePutServer)},
		{"DELETE /api/servers/{id}", Login, http.HandlerFunc(s.handleDeleteServer)},

		{"GET /api/reminders", Login, http.HandlerFunc(s.handleReminders)},
		{"POST /api/reminders", Login, need(s.handleCreateSchedule, p.schedules)},
		{"POST /api/reminders/preview", Login, need(s.handlePreviewSchedule, p.schedules)},
		{"PUT /api/reminders/{id}", Login, need(s.handleEditSchedule, p.schedules)},
		{"POST /api/reminders/{id}/test", Login, need(s.handleTestSchedule, p.schedules)},
		{"POST /api/reminders/{id}/cancel", Login, need(s.handleCancelReminder, p.reminders)},
		{"POST /api/reminders/{id}/pause", Login, need(s.handlePauseReminder, p.reminders)},
		{"POST /api/reminders/{id}/resume", Login, need(s.handleResumeReminder, p.reminders)},
		{"GET /api/system/word-pool", Login, http.HandlerFunc(s.handleWordPool)},
		{"GET /api/profiles", Login, http.HandlerFunc(s.handleProfiles)},
		{"DELETE /api/profiles/{id}", Login, http.HandlerFunc(s.handleDeleteProfileFact)},
		{"POST /api/system/backfill-tags", Login, need(s.handleBackfillTags, p.memory)},

		{"/jobs/", Login, need(withCSRFScript(s.opts.Deps.Jobs).ServeHTTP, p.jobs)},
	}
	return append(rs, s.opts.Pages...)
}
