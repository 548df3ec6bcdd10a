package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/vision"
)

// webUser is who types on the admin page, for the rate limit and the
// stored turn.
const (
	webUserID   = "admin"
	webUserName = "管理者"
)

// Texts a person sees in an error event.
const (
	rateLimitedText = "メッセージのペースが速すぎます（USER_RATE_LIMIT）。少し待ってからもう一度送ってください。"
	unavailableText = "モデルサーバーに接続できません。サーバー（Ollama など）が起動しているか、OLLAMA_HOST（OpenAI 互換のサーバーなら OPENAI_BASE_URL）の設定を確認してください。"
	timeoutText     = "時間内に答え終わりませんでした（TURN_TIMEOUT）。質問を分けるか、もう一度お試しください。"
)

type streamRequest struct {
	SessionID   int64   `json:"session_id"`
	Message     string  `json:"message"`
	Model       string  `json:"model"`
	NotePageIDs []int64 `json:"note_page_ids"`
	Space       string  `json:"space"` // of a new conversation; default: the default space
	// Images are pictures uploaded or pasted with the message; the chat
	// handler checks and prepares them as it does Discord's.
	Images []imageUpload `json:"images"`
	// Files are documents uploaded with the message (text, Markdown, CSV,
	// JSON, HTML, PDF): read and kept by the chat handler as Discord's
	// attached files are, at most chat.MaxDocumentBytes in all.
	Files []imageUpload `json:"files"`
	// Regenerate is an answer of the conversation to write again (the
	// question it answered is asked again); Edit is a user message of it to
	// send again as Message. Either keeps what was there from that point on
	// as another version.
	Regenerate int64 `json:"regenerate"`
	Edit       int64 `json:"edit"`
}

// imageUpload is one file sent with a message, a picture (Images) or a
// document (Files): its bytes in base64.
type imageUpload struct {
	Name string `json:"name"`
	Type string `json:"type"` // content type, e.g. image/png
	Data []byte `json:"data"`
}

// maxStreamBody bounds POST /chat/stream: the images' limit (each at
// most vision.MaxBytes) and the documents' (chat.MaxDocumentBytes in all),
// in base64, with room for the message.
const maxStreamBody = (vision.MaxImages*vision.MaxBytes+chat.MaxDocumentBytes)*4/3 + maxBody

// attachments turns the uploads into the request's attachments: the chat
// handler takes the pictures for the model's eyes and reads the rest as
// documents.
func (req streamRequest) attachments() []chat.Attachment {
	out := make([]chat.Attachment, 0, len(req.Images)+len(req.Files))
	for i, up := range append(append([]imageUpload(nil), req.Images...), req.Files...) {
		data, name := up.Data, strings.TrimSpace(up.Name)
		if name == "" && i < len(req.Images) {
			name = fmt.Sprintf("image-%d", i+1)
		} else if name == "" {
			name = fmt.Sprintf("file-%d", i-len(req.Images)+1)
		}
		load := func(context.Context) ([]byte, error) { return data, nil }
		out = append(out, chat.Attachment{
			Filename: name, ContentType: up.Type, Size: len(data), Load: load, LoadDocument: load,
		})
	}
	return out
}

// event is one SSE line: data: {"type": …, "value": …}.
type event struct {
	Type  string `json:"type"`
	Value any    `json:"value,omitempty"`
}

// toolEvent is the value of a tool event: the same id when it starts
// (status running) and when it is done.
type toolEvent struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Label      string `json:"label"`
	Detail     string `json:"detail,omitempty"`
	Status     string `json:"status"` // running, done
	Result     string `json:"result,omitempty"`
	Error      bool   `json:"error,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
}

type sourceJSON struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// doneEvent is the value of done: the turn's token counts and timings.
type doneEvent struct {
	PromptTokens     int   `json:"prompt_tokens"`
	CompletionTokens int   `json:"completion_tokens"`
	Calls            int   `json:"calls"`
	ModelMS          int64 `json:"model_ms"` // time Ollama reports for the calls
	WallMS           int64 `json:"wall_ms"`  // the whole turn, queueing included
}

// sseWriter writes events and flushes each at once. A stream lasts as long
// as its turn, so the server's WriteTimeout would cut it: each event gets
// timeout to be written instead, which still cuts off a client that stops
// reading.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (s *sseWriter) send(typ string, value any) error {
	b, err := json.Marshal(event{Type: typ, Value: value})
	if err != nil {
		return fmt.Errorf("encode %s event: %w", typ, err)
	}
	return s.sendRaw(0, b)
}

// sendRaw writes an encoded event, with its id when id > 0 (a page that
// comes back sends the last one it saw as Last-Event-ID).
func (s *sseWriter) sendRaw(id int, b []byte) error {
	typ := "raw"
	buf := make([]byte, 0, len(b)+24)
	if id > 0 {
		buf = append(strconv.AppendInt(append(buf, "id: "...), int64(id), 10), '\n')
	}
	buf = append(append(append(buf, "data: "...), b...), "\n\n"...)
	if err := s.rc.SetWriteDeadline(time.Now().Add(s.timeout)); err != nil {
		return fmt.Errorf("send %s event: %w", typ, err)
	}
	if _, err := s.w.Write(buf); err != nil {
		return fmt.Errorf("send %s event: %w", typ, err)
	}
	return s.rc.Flush()
}

// handleStream runs one chat turn and streams it as server-sent events:
// POST /chat/stream {session_id?, message, model?, note_page_ids?}. The turn
// goes through the same chat router as Discord's and is stored the same
// way. It is the server's: a client that goes away only stops watching, the
// turn runs to its end (a page that comes back follows it through
// GET /chat/sessions/{id}/live), and only 停止 stops it.
func (s *Server) handleStream(w http.ResponseWriter, r *http.Request) {
	var req streamRequest
	if !decodeJSON(w, r, &req, maxStreamBody) {
		return
	}
	req.Message = strings.TrimSpace(req.Message)
	if req.Message == "" && len(req.Images) == 0 && len(req.Files) == 0 && req.Regenerate == 0 {
		writeFieldError(w, "message", "メッセージを入力してください")
		return
	}
	for i, img := range req.Images {
		if len(img.Data) == 0 {
			writeFieldError(w, fmt.Sprintf("images[%d].data", i), "画像のデータがありません")
			return
		}
	}
	for i, f := range req.Files {
		if len(f.Data) == 0 {
			writeFieldError(w, fmt.Sprintf("files[%d].data", i), "ファイルのデータがありません")
			return
		}
	}
	ctx := r.Context()
	var sess db.SessionItem
	isNew := req.SessionID == 0
	if isNew {
		space, ok := s.space(w, r, req.Space)
		if !ok || !s.allowTurn(w) {
			return
		}
		var err error
		sess, err = db.CreateSession(ctx, s.opts.Pool, db.NewSession{Key: string(newWebKey()), Source: "web", Space: string(space),
			Title: req.title(), Model: req.Model, At: s.opts.Now()})
		if err != nil {
			s.internalError(w, r, err)
			return
		}
	} else {
		var err error
		sess, err = db.SessionItemByID(ctx, s.opts.Pool, req.SessionID)
		if errors.Is(err, db.ErrNotFound) {
			writeFieldError(w, "session_id", "その会話はありません")
			return
		}
		if err != nil {
			s.internalError(w, r, err)
			return
		}
		if sessionSource(sess) != "web" {
			writeError(w, http.StatusForbidden, "Discord の会話は読むだけです。新しいチャットを始めてください。")
			return
		}
		var fork *forkPoint
		if req.Regenerate != 0 || req.Edit != 0 {
			if fork = s.findForkPoint(w, r, sess, &req); fork == nil {
				return
			}
		}
		// The limit before the fork: a refused 再生成 or 編集 leaves the
		// version shown as it was.
		if !s.allowTurn(w) || (fork != nil && !s.fork(w, r, sess, *fork)) {
			return
		}
	}
	key := memory.SessionKey(sess.Key)
	// Linking before the context is built, so this very turn carries them.
	if req.NotePageIDs != nil && !s.setLinkedNotes(w, r, key, req.NotePageIDs) {
		return
	}

	// The turn is the server's: it goes on when this page goes away, and
	// only 停止 cancels it. This handler still waits for its end, so a
	// graceful shutdown lets it finish.
	tctx, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stop(nil)
	turn := newLiveTurn(sess.ID, req.Message, stop)
	s.lanes.live.add(turn)
	go func() {
		defer s.lanes.live.remove(turn)
		defer turn.finish()
		if err := s.stream(tctx, turn, sess, req); err != nil && !chat.Stopped(tctx) {
			s.opts.Logger.Warn("chat stream", "session", sess.Key, "err", err)
		}
	}()

	out := startSSE(w, s.opts.WriteTimeout)
	if isNew {
		if out.send("session_id", sess.ID) != nil {
			<-turn.ended
			return
		}
	}
	_ = turn.follow(ctx, 0, out)
	<-turn.ended
}

// eventSink takes a turn's events: a liveTurn, which keeps them for the
// pages that follow it.
type eventSink interface {
	send(typ string, value any) error
}

// allowTurn counts a turn against the admin's rate limit (USER_RATE_LIMIT,
// shared with Discord). Over it, it answers 429 with the notice and returns
// false: nothing has been written yet, neither a new conversation nor a
// version put aside.
func (s *Server) allowTurn(w http.ResponseWriter) bool {
	l := s.opts.Deps.Limiter
	if l == nil {
		return true
	}
	if ok, _ := l.Allow(webUserID, s.opts.Now()); !ok {
		writeError(w, http.StatusTooManyRequests, rateLimitedText)
		return false
	}
	return true
}

// stream runs the turn of req in sess, writing its events to out.
func (s *Server) stream(ctx context.Context, out eventSink, sess db.SessionItem, req streamRequest) error {
	queued := func(pos int) error { return out.send("queued", map[string]int{"position": pos}) }
	leave, err := s.lanes.enter(ctx, sess.Key, queued)
	if err != nil {
		return err
	}
	defer leave()

	model := strings.TrimSpace(req.Model)
	if model != "" && model != sess.Model {
		if err := db.SetSessionModel(ctx, s.opts.Pool, sess.ID, model); err != nil {
			return err
		}
	}
	if sess.Title == "" {
		if err := db.SetSessionTitle(ctx, s.opts.Pool, sess.ID, req.title()); err != nil {
			return err
		}
	}
	if model == "" {
		model = sess.Model
	}
	tr := &turnEvents{out: out, stopped: func() bool { return chat.Stopped(ctx) }}
	err = s.opts.Deps.Chat.Respond(ctx, chat.Request{
		Session: sess.Key, Source: "web", Space: sess.Space, AuthorID: webUserID, AuthorName: webUserName,
		Text: req.Message, At: s.opts.Now(), Model: model, Attachments: req.attachments(),
	}, tr.emit)
	if err != nil && !tr.ended && ctx.Err() == nil {
		// A failure before the model ran (the context could not be read)
		// has no Failed event of its own.
		return errors.Join(err, out.send("error", failureTexts.Text(err)))
	}
	return err
}

// turnEvents turns the pipeline's events into SSE events.
type turnEvents struct {
	out     eventSink
	stopped func() bool // the turn was stopped by a person
	n       int
	running []toolEvent // started, not yet done, in order
	ended   bool        // done or error sent
}

func (t *turnEvents) emit(ev llm.Event) error {
	switch e := ev.(type) {
	case llm.Text:
		return t.out.send("chunk", e.Text)
	case llm.Queued:
		return t.out.send("queued", map[string]int{"position": e.Position})
	case llm.ToolStarted:
		t.n++
		te := toolEvent{ID: fmt.Sprintf("tool-%d", t.n), Name: e.Name, Label: chat.ToolLabel(e.Name), Detail: argsDetail(e.Arguments), Status: "running"}
		t.running = append(t.running, te)
		return t.out.send("tool", te)
	case llm.ToolFinished:
		return t.toolDone(e)
	case llm.Done:
		t.ended = true
		return t.out.send("done", doneEvent{
			PromptTokens: e.Metrics.PromptTokens, CompletionTokens: e.Metrics.CompletionTokens, Calls: e.Metrics.Calls,
			ModelMS: e.Metrics.Total.Milliseconds(), WallMS: e.Metrics.Wall.Milliseconds(),
		})
	case llm.Failed:
		t.ended = true
		if t.stopped != nil && t.stopped() {
			// Not a failure: the page marks the answer as the store does.
			return t.out.send("stopped", chat.StoppedMark)
		}
		return t.out.send("error", failureTexts.Text(e.Err))
	}
	return nil // thinking is never shown
}

func (t *turnEvents) toolDone(e llm.ToolFinished) error {
	te := toolEvent{ID: fmt.Sprintf("tool-%d", t.n+1), Name: e.Name, Label: chat.ToolLabel(e.Name)}
	for i, r := range t.running {
		if r.Name == e.Name {
			te = r
			t.running = append(t.running[:i], t.running[i+1:]...)
			break
		}
	}
	te.Status, te.Detail = "done", ""
	te.Error, te.DurationMS = e.Err != nil, e.Duration.Milliseconds()
	result, srcs := chat.ToolOutcome(e)
	te.Result = result
	if err := t.out.send("tool", te); err != nil {
		return err
	}
	switch {
	case e.Err != nil:
		return nil
	case e.Name == "write_note":
		return t.out.send("notes_updated", nil)
	case len(srcs) > 0:
		return t.out.send("sources", toSourcesJSON(srcs))
	}
	return nil
}

func toSourcesJSON(srcs []db.ActivitySource) []sourceJSON {
	out := make([]sourceJSON, len(srcs))
	for i, src := range srcs {
		out[i] = sourceJSON{Title: src.Title, URL: src.URL}
	}
	return out
}

// argsDetail is a tool event's detail: the page has a label for the tool,
// so the line shows the argument that says what the call is about (query,
// url, title, …) rather than all of them; at most 100 characters.
func argsDetail(args string) string {
	return chat.ToolPreview(args, 100, chat.ToolDetailKeys...)
}

// title is the title of a conversation that starts with req: its text,
// or the first image's name, or the first file's.
func (req streamRequest) title() string {
	if req.Message == "" && len(req.Images) > 0 {
		return titleFrom("画像: " + req.attachments()[0].Filename)
	}
	if req.Message == "" && len(req.Files) > 0 {
		return titleFrom("ファイル: " + req.attachments()[0].Filename)
	}
	return titleFrom(req.Message)
}

// titleFrom makes a conversation's title from its first message.
func titleFrom(message string) string {
	return chat.OneLine(message, 40)
}

// failureTexts word a failed turn for the admin: what happened and what
// to check, the error itself when nothing better is known.
var failureTexts = chat.FailureTexts{
	Timeout:     timeoutText,
	Unavailable: unavailableText,
	Other: func(err error) string {
		return "エラーで答えられませんでした: " + chat.OneLine(err.Error(), 300)
	},
}
