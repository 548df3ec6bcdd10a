package web

import (
	"fmt"
	"net/http"
	"time"
)

// maxLoginBody bounds POST /api/login: a password fits many times over.
const maxLoginBody = 4 << 10

// bodyLimits are the routes whose request body may be other than maxBody.
// Those allowed more (uploads) also get Options.UploadTimeout to send it,
// once logged in.
var bodyLimits = map[string]int64{
	"POST /api/login":            maxLoginBody,
	"POST /chat/stream":          maxStreamBody,
	"POST /chat/sessions/import": maxImportBody,
}

// bodyLimit is the largest request body the route of pattern reads.
func bodyLimit(pattern string) int64 {
	if n, ok := bodyLimits[pattern]; ok {
		return n
	}
	return maxBody
}

// limitBody refuses a request whose declared body is over limit (413,
// without reading it) and caps what is read of any other.
func limitBody(w http.ResponseWriter, r *http.Request, limit int64) bool {
	if r.ContentLength > limit {
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestEntityTooLarge, tooLargeText(limit))
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	return true
}

func tooLargeText(limit int64) string {
	return fmt.Sprintf("大きすぎます（上限 %d バイト）。", limit)
}

// allowUpload gives a logged-in upload UploadTimeout to arrive, and its
// answer WriteTimeout after that. Once the body is read, net/http lifts the
// read deadline itself (its watch for a client that goes away has none), so
// a turn streamed after it is not cut; a request without a body has nothing
// to wait for.
func (s *Server) allowUpload(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength == 0 {
		return
	}
	rc := http.NewResponseController(w)
	now := time.Now()
	_ = rc.SetReadDeadline(now.Add(s.opts.UploadTimeout))
	_ = rc.SetWriteDeadline(now.Add(s.opts.UploadTimeout + s.opts.WriteTimeout))
}
