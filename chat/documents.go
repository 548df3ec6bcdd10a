package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools/browse"
	"github.com/yorozu-bot/yorozu/vision"
)

// Documents attached to a message (on Discord, also to the message it
// replies to; on the admin page, uploaded with it): text, Markdown, CSV,
// JSON, HTML and PDF files are loaded by the adapter (Attachment.LoadDocument),
// read with the web tools' extraction and kept as the conversation's
// fetched files, so the model reads them with read_fetched_file, in this
// turn and later ones. The model is told each file's name, size, id and the
// first part of its text, as much as the context budget leaves
// (memory.Document). The router does this for every turn, whichever
// adapter it came from.

// DocumentKeeper keeps a document's text with a conversation;
// *memory.Memory satisfies it.
type DocumentKeeper interface {
	KeepFetched(ctx context.Context, key memory.SessionKey, doc memory.FetchedDoc) (db.FetchedFile, error)
}

// MaxDocumentBytes is the largest document file read (10 MB).
const MaxDocumentBytes = 10 << 20

const (
	// documentPreviewRunes is how much of a document's text the model is
	// given with the question; it reads the rest with read_fetched_file.
	documentPreviewRunes = 3000
	// documentStoreTimeout bounds keeping one document.
	documentStoreTimeout = 10 * time.Second
)

// documentTool names the documents kept from an adapter in the fetched
// files list: discord_attachment, web_attachment.
func documentTool(source string) string { return source + "_attachment" }

// withDocuments reads and keeps req's documents and gives them to the
// turn (Request.Documents), which fits them into the context budget
// with the question. It returns the lines that tell the user which files
// were not read and why; images are left to the chat handler.
func (r *Router) withDocuments(ctx context.Context, req Request) (Request, []string) {
	var notes []string
	for _, a := range req.Attachments {
		if vision.IsImage(a.ContentType, a.Filename) {
			continue
		}
		doc, note := r.readDocument(ctx, req, a)
		if note != "" {
			notes = append(notes, note)
			continue
		}
		req.Documents = append(req.Documents, doc)
	}
	return req, notes
}

// readDocument reads and keeps one document: what the model is given of
// it, or the line telling the user why it was not read.
func (r *Router) readDocument(ctx context.Context, req Request, a Attachment) (doc memory.Document, note string) {
	name := a.Filename
	if browse.DocumentKind(a.Filename, a.ContentType) == "" {
		return doc, fmt.Sprintf("※「%s」は読めない種類のファイルです（読めるのはテキスト・Markdown・CSV・JSON・HTML・PDF）。", name)
	}
	if a.Size > MaxDocumentBytes {
		return doc, fmt.Sprintf("※「%s」は大きすぎるため読んでいません（%s、10 MB まで）。", name, sizeText(int64(a.Size)))
	}
	if r.Documents == nil || a.LoadDocument == nil {
		return doc, fmt.Sprintf("※「%s」は読んでいません（ファイルの保存先がありません）。", name)
	}
	data, err := a.LoadDocument(ctx)
	if err == nil && len(data) > MaxDocumentBytes {
		err = vision.ErrTooLarge
	}
	if err != nil {
		r.logger().InfoContext(ctx, "document not read", "channel_id", req.ChannelID, "file", name, "err", err)
		if errors.Is(err, vision.ErrTooLarge) {
			return doc, fmt.Sprintf("※「%s」は大きすぎるため読んでいません（10 MB まで）。", name)
		}
		return doc, fmt.Sprintf("※「%s」をダウンロードできませんでした。", name)
	}
	kind, text, err := browse.ReadDocument(data, a.Filename, a.ContentType)
	if err != nil {
		r.logger().InfoContext(ctx, "document unreadable", "channel_id", req.ChannelID, "file", name, "err", err)
		return doc, fmt.Sprintf("※「%s」から文字を読み取れませんでした。", name)
	}
	sctx, cancel := context.WithTimeout(ctx, documentStoreTimeout)
	defer cancel()
	f, err := r.Documents.KeepFetched(sctx, memory.SessionKey(req.Session), memory.FetchedDoc{
		URL: documentURL(a.URL, name), Title: name, MediaType: kind, Size: int64(len(data)), Text: text, Tool: documentTool(req.Source),
		Source: req.Source, GuildID: req.GuildID, ChannelID: req.ChannelID, Space: memory.Space(req.Space),
	})
	if err != nil {
		r.logger().WarnContext(ctx, "keep document", "channel_id", req.ChannelID, "file", name, "err", err)
		return doc, fmt.Sprintf("※「%s」を保存できなかったため読んでいません。", name)
	}
	doc = memory.Document{Name: name, About: sizeText(int64(len(data))) + ", " + kind, FileID: f.ID, Text: text}
	if utf8.RuneCountInString(text) > documentPreviewRunes {
		doc.Text, doc.Part = string([]rune(text)[:documentPreviewRunes]), true
	}
	return doc, ""
}

// logger is the router's logger, or the default one.
func (r *Router) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// documentURL is where a document is kept under: the attachment's address
// without Discord's expiring signature, so a file attached again replaces
// its copy; an upload, which has no address, is kept under its name.
func documentURL(raw, name string) string {
	if raw == "" {
		return "upload:" + name
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// sizeText is n bytes for people: 512 B, 1.2 KB, 3.4 MB.
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// notedHandler gives h's answer the notes on its documents as a last
// paragraph: just before its Done, or after it ends when it sent none.
type notedHandler struct {
	h     Handler
	notes []string
}

func (n notedHandler) Handle(ctx context.Context, req Request, emit func(llm.Event) error) error {
	if emit == nil {
		return n.h.Handle(ctx, req, emit)
	}
	emitted := false
	err := n.h.Handle(ctx, req, withNotes(n.notes, emit, &emitted))
	if err == nil && !emitted {
		err = emit(llm.Text{Text: "\n\n" + strings.Join(n.notes, "\n")})
	}
	return err
}

// withNotes emits notes as a last paragraph of the answer, before its end.
// It reports, through emitted, whether they went out.
func withNotes(notes []string, emit func(llm.Event) error, emitted *bool) func(llm.Event) error {
	if len(notes) == 0 {
		*emitted = true
		return emit
	}
	return func(ev llm.Event) error {
		if _, done := ev.(llm.Done); done && !*emitted {
			*emitted = true
			if err := emit(llm.Text{Text: "\n\n" + strings.Join(notes, "\n")}); err != nil {
				return err
			}
		}
		return emit(ev)
	}
}
