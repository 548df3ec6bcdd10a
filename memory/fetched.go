package memory

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
)

// MaxFetchedBytes is the most text kept of one fetched document; longer
// text is cut there and marked.
const MaxFetchedBytes = 2 << 20

// maxFetchedListed bounds list_fetched_files and the admin page's list.
const maxFetchedListed = 100

// fetchedHint tells the model, when the conversation keeps documents, to
// reread them rather than fetch them again.
const fetchedHint = "この会話で取得済みの文書（PDF・CSV・ページなど）は list_fetched_files で一覧し、read_fetched_file で読み直せます。同じ文書を取得し直す必要はありません。"

// FetchedDoc is a document a web tool fetched, to keep with its
// conversation.
type FetchedDoc struct {
	URL       string // as fetched, after redirects; one entry per URL and conversation
	Title     string
	MediaType string // pdf, html, csv, …
	Size      int64  // bytes as fetched
	Text      string // extracted text; cut to MaxFetchedBytes here
	Tool      string
	// Source and GuildID describe the conversation when this creates it
	// (a document fetched during a conversation's first turn).
	Source, GuildID, ChannelID string
	// Space is the conversation's space; empty: SpaceOf(Source, GuildID,
	// ""), else the default space.
	Space Space
}

// fetchedCutNote ends kept text that was cut, so whoever reads it back (the
// model, the admin page) knows the rest is missing.
const fetchedCutNote = "\n\n…[cut: only the first 2 MB of this document's text were kept]"

// KeepFetched keeps doc with conversation key, replacing what was kept of
// the same URL there.
func (m *Memory) KeepFetched(ctx context.Context, key SessionKey, doc FetchedDoc) (db.FetchedFile, error) {
	space := doc.Space
	if space == "" {
		space = SpaceOf(doc.Source, doc.GuildID, "")
	}
	space, err := m.space(ctx, space)
	if err != nil {
		return db.FetchedFile{}, err
	}
	s, err := db.UpsertSession(ctx, m.pool, db.SessionParams{
		Key: string(key), Source: doc.Source, GuildID: doc.GuildID, ChannelID: doc.ChannelID,
		Space: string(space), At: m.opts.Now(),
	})
	if err != nil {
		return db.FetchedFile{}, err
	}
	text, cut := cutUTF8(doc.Text, MaxFetchedBytes-len(fetchedCutNote))
	if cut {
		text += fetchedCutNote
	}
	f, err := db.UpsertFetchedFile(ctx, m.pool, db.FetchedFileParams{
		SessionID: s.ID, URL: doc.URL, Title: doc.Title, MediaType: doc.MediaType, SizeBytes: doc.Size,
		Content: text, Truncated: cut, Tool: doc.Tool, At: m.opts.Now(),
	})
	m.dropKey(key)
	if err != nil {
		return db.FetchedFile{}, err
	}
	return f, nil
}

// FetchedFiles lists conversation key's documents, newest first, without
// their text.
func (m *Memory) FetchedFiles(ctx context.Context, key SessionKey) ([]db.FetchedFile, error) {
	return db.FetchedFilesByKey(ctx, m.pool, string(key), maxFetchedListed)
}

// FetchedFile returns document id of conversation key with its text; an id
// of another conversation is db.ErrNotFound.
func (m *Memory) FetchedFile(ctx context.Context, key SessionKey, id int64) (db.FetchedFile, error) {
	return db.FetchedFileByKey(ctx, m.pool, string(key), id)
}

// cutUTF8 returns s cut to at most n bytes on a character boundary, and
// whether it was cut.
func cutUTF8(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// forgetFetched drops the documents of key along with /forget.
func (m *Memory) forgetFetched(ctx context.Context, key SessionKey) error {
	if _, err := db.DeleteFetchedFilesByKey(ctx, m.pool, string(key)); err != nil {
		return fmt.Errorf("forget fetched files: %w", err)
	}
	return nil
}
