package browse

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/page"
)

// KeptDoc is a document a web tool fetched, as kept with its conversation.
type KeptDoc struct {
	ID        int64 // set by the Keeper
	URL       string
	Title     string
	MediaType string // pdf, html, csv, …
	Size      int64  // bytes as fetched
	Text      string // extracted text; empty in listings
	Truncated bool   // the Keeper cut Text to its limit
	Tool      string // the tool that fetched it
	FetchedAt time.Time
}

// Keeper keeps every document the web tools fetch with the conversation
// that asked (tools.Caller's Session), so list_fetched_files and
// read_fetched_file can give it back without fetching again.
type Keeper interface {
	// Keep stores d for the caller's conversation, replacing an earlier
	// copy of the same URL there. A failure is the Keeper's to log: the
	// tool's answer does not depend on it.
	Keep(ctx context.Context, c tools.Caller, d KeptDoc)
	// List returns the conversation's documents, newest first, without text.
	List(ctx context.Context, session string) ([]KeptDoc, error)
	// Get returns a document of the conversation with its text; found is
	// false for an id that is not the conversation's.
	Get(ctx context.Context, session string, id int64) (d KeptDoc, found bool, err error)
}

// keep hands a fetched document to the Keeper, if there is one and the call
// belongs to a conversation.
func (b *Browser) keep(ctx context.Context, d KeptDoc) {
	if b.deps.Keeper == nil {
		return
	}
	c, ok := tools.CallerFrom(ctx)
	if !ok || c.Session == "" {
		return
	}
	b.deps.Keeper.Keep(ctx, c, d)
}

// readKeptToken is the continuation state of read_fetched_file.
type readKeptToken struct {
	Session string `json:"s"`
	ID      int64  `json:"f"`
	Offset  int    `json:"o"` // runes already returned
}

// ListKept runs list_fetched_files: the caller's conversation's documents,
// newest first, one line each.
func (b *Browser) ListKept(ctx context.Context) string {
	session := callerSession(ctx)
	if b.deps.Keeper == nil || session == "" {
		return "No fetched files are kept for this conversation."
	}
	docs, err := b.deps.Keeper.List(ctx, session)
	if err != nil {
		return "Failed to list fetched files: " + shortReason(err)
	}
	if len(docs) == 0 {
		return "No files have been fetched in this conversation yet."
	}
	var out strings.Builder
	fmt.Fprintf(&out, "%d fetched file(s), newest first. Read one with read_fetched_file(file_id).\n", len(docs))
	for _, d := range docs {
		title := d.Title
		if title == "" {
			title = "(no title)"
		}
		fmt.Fprintf(&out, "- file_id %d: %s | %s | %s, %s | fetched %s", d.ID, title, d.URL, d.MediaType,
			byteSize(d.Size), d.FetchedAt.In(b.location()).Format("2006-01-02 15:04"))
		if d.Truncated {
			out.WriteString(" | text cut at 2 MB")
		}
		out.WriteString("\n")
	}
	return strings.TrimRight(out.String(), "\n")
}

// ReadKept runs read_fetched_file: a kept document's text from where token
// left off, at most maxChars characters, with the same page-info footer as
// the other paged tools. An id of another conversation is "not found".
func (b *Browser) ReadKept(ctx context.Context, fileID int64, maxChars int, token string) string {
	session := callerSession(ctx)
	if b.deps.Keeper == nil || session == "" {
		return "No fetched files are kept for this conversation."
	}
	if maxChars <= 0 {
		maxChars = 8000
	}
	maxChars = b.pageChars(maxChars)
	st := readKeptToken{Session: session, ID: fileID}
	if token != "" {
		if err := b.deps.Signer.Verify("read_fetched_file", strings.TrimSpace(token), &st); err != nil {
			return tokenMessage(err)
		}
		if st.Session != session {
			return "Invalid continuation token: token belongs to another conversation"
		}
	}
	if st.ID <= 0 {
		return "Invalid file_id: use an id from list_fetched_files."
	}
	d, found, err := b.deps.Keeper.Get(ctx, session, st.ID)
	if err != nil {
		return "Failed to read fetched file " + strconv.FormatInt(st.ID, 10) + ": " + shortReason(err)
	}
	if !found {
		return fmt.Sprintf("Fetched file %d not found in this conversation. Use list_fetched_files to see the ids.", st.ID)
	}
	pieces, next, more := take([]string{d.Text}, cursor{Offset: st.Offset}, maxChars, 1)
	if len(pieces) == 0 {
		return "No more content."
	}
	var out strings.Builder
	if st.Offset == 0 {
		fmt.Fprintf(&out, "File %d: %s\nURL: %s\nType: %s\nSize: %s\nFetched: %s\nCharacters: %d\n",
			d.ID, d.Title, d.URL, d.MediaType, byteSize(d.Size),
			d.FetchedAt.In(b.location()).Format("2006-01-02 15:04"), utf8.RuneCountInString(d.Text))
		if d.Truncated {
			out.WriteString("Note: only the first 2 MB of the text were kept.\n")
		}
		out.WriteString("\n")
	}
	out.WriteString(pieces[0].Text)
	var nextToken string
	if more {
		st.Offset = next.Offset
		if nextToken, err = b.deps.Signer.Sign("read_fetched_file", st); err != nil {
			return "Failed to continue: " + err.Error()
		}
	}
	return page.WithFooter(strings.TrimRight(out.String(), "\n"), more, nextToken)
}

func callerSession(ctx context.Context) string {
	c, _ := tools.CallerFrom(ctx)
	return c.Session
}

func (b *Browser) location() *time.Location {
	if b.deps.Location != nil {
		return b.deps.Location
	}
	return time.UTC
}

// byteSize is n for people: 512 B, 3.2 KB, 4.8 MB.
func byteSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
