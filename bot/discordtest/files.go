// Attachments: files uploaded with a message (multipart/form-data) and
// files the fake serves as Discord's CDN would.

package discordtest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// Attachment is a file sent with a message as multipart/form-data.
type Attachment struct {
	Filename    string
	ContentType string
	Data        []byte
}

// readBody returns a request's JSON body; for multipart/form-data (a
// message with files) that is the payload_json part, and the files[n] parts
// are returned beside it, as Discord reads them.
func readBody(r *http.Request) (json.RawMessage, []Attachment, error) {
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		b, err := io.ReadAll(r.Body)
		return b, nil, err
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var body json.RawMessage
	var files []Attachment
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return body, files, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("multipart: %w", err)
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return nil, nil, fmt.Errorf("multipart part %q: %w", part.FormName(), err)
		}
		switch name := part.FormName(); {
		case name == "payload_json":
			body = data
		case strings.HasPrefix(name, "files["):
			files = append(files, Attachment{Filename: part.FileName(), ContentType: part.Header.Get("Content-Type"), Data: data})
		default:
			return nil, nil, fmt.Errorf("unknown form field %q", name)
		}
	}
}

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
