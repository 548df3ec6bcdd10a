package web

import (
	"net/http"

	"github.com/yorozu-bot/yorozu/db"
)

// maxListedFiles bounds a conversation's document list.
const maxListedFiles = 200

// handleSessionFiles lists the documents the web tools fetched in a
// conversation, newest first, without their text:
// GET /chat/sessions/{id}/files.
func (s *Server) handleSessionFiles(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	fs, err := db.FetchedFilesBySession(r.Context(), s.opts.Pool, id, maxListedFiles)
	if err != nil {
		s.notFoundOr500(w, r, err)
		return
	}
	out := make([]fetchedFileJSON, len(fs))
	for i, f := range fs {
		out[i] = fetchedFileView(f, false)
	}
	writeJSON(w, http.StatusOK, out)
}

// handleSessionFile returns one kept document with its text:
// GET /chat/sessions/{id}/files/{file_id}. A document of another
// conversation is 404.
func (s *Server) handleSessionFile(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	fileID, ok := pathID(w, r, "file_id")
	if !ok {
		return
	}
	f, err := db.FetchedFileInSession(r.Context(), s.opts.Pool, id, fileID)
	if err != nil {
		s.notFoundOr500(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, fetchedFileView(f, true))
}

type fetchedFileJSON struct {
	ID        int64  `json:"id"`
	Title     string `json:"title"`
	URL       string `json:"url"`
	MediaType string `json:"media_type"`
	Size      int64  `json:"size"`
	Truncated bool   `json:"truncated"`
	Tool      string `json:"tool"`
	FetchedAt string `json:"fetched_at"`
	Text      string `json:"text,omitempty"`
}

func fetchedFileView(f db.FetchedFile, withText bool) fetchedFileJSON {
	v := fetchedFileJSON{
		ID: f.ID, Title: f.Title, URL: f.URL, MediaType: f.MediaType, Size: f.SizeBytes,
		Truncated: f.Truncated, Tool: f.Tool, FetchedAt: f.FetchedAt.UTC().Format("2006-01-02T15:04:05Z07:00"),
	}
	if withText {
		v.Text = f.Content
	}
	return v
}
