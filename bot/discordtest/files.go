package discordtest

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/bwmarrin/discordgo"
)

// servedFile is a file the fake serves as Discord's CDN would.
type servedFile struct {
	contentType string
	data        []byte
}

// AddAttachment makes the fake serve data as an attachment named name, as
// Discord's CDN does (on the fake's own origin, under /attachments/), and
// returns the attachment to put on a message given to SendMessage. The
// response's Content-Type is contentType; the attachment reports it and
// the size too. Width and Height are left for the test to set.
func (s *Server) AddAttachment(name, contentType string, data []byte) *discordgo.MessageAttachment {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.newIDLocked()
	path := "/attachments/" + id + "/" + url.PathEscape(name)
	if s.files == nil {
		s.files = map[string]servedFile{}
	}
	s.files[path] = servedFile{contentType: contentType, data: data}
	link := "http://" + s.addr + path
	return &discordgo.MessageAttachment{
		ID: id, Filename: name, ContentType: contentType, Size: len(data), URL: link, ProxyURL: link,
	}
}

// Downloads returns the paths of the attachment files fetched so far, in
// order.
func (s *Server) Downloads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.downloads...)
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	f, ok := s.files[r.URL.EscapedPath()]
	if ok && r.Method == http.MethodGet {
		s.downloads = append(s.downloads, r.URL.Path)
		s.notifyLocked()
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if f.contentType != "" {
		w.Header().Set("Content-Type", f.contentType)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(f.data)))
	_, _ = w.Write(f.data)
}
