package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// This file holds what the admin page does to memory beyond what a turn
// does: links of notes to a conversation, pruning summaries and knowledge,
// the knowledge-base folder, and tag backfills.

// ErrBadPath: a knowledge-base path leaves the folder or is malformed.
var ErrBadPath = errors.New("path outside the knowledge base")

// MaxKBFileBytes bounds what KnowledgeBaseFile reads.
const MaxKBFileBytes = 2 << 20

// kbSyncKey keeps when the knowledge base was last synced, by any process.
const kbSyncKey = "kb_last_sync"

// LinkedNotes returns the pages whose full text session key's context
// carries (layer 2.5), in page order.
func (m *Memory) LinkedNotes(ctx context.Context, key SessionKey) ([]db.NotePage, error) {
	s, err := db.SessionByKey(ctx, m.pool, string(key))
	if errors.Is(err, db.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return db.LinkedNotePagesByKey(ctx, m.pool, s.Space, string(key))
}

// SetLinkedNotes makes pageIDs exactly the pages linked to session key. A
// missing session, or an id that is no page of its space, wraps
// db.ErrNotFound and changes nothing.
func (m *Memory) SetLinkedNotes(ctx context.Context, key SessionKey, pageIDs []int64) error {
	s, err := db.SessionByKey(ctx, m.pool, string(key))
	if err != nil {
		return err
	}
	if pageIDs == nil {
		pageIDs = []int64{}
	}
	defer m.dropKey(key)
	return db.SetSessionNotePages(ctx, m.pool, s.ID, pageIDs)
}

// DeleteSummary removes a summary; the turns it had archived come back into
// their session's context. It returns how many messages came back.
func (m *Memory) DeleteSummary(ctx context.Context, id int64) (int64, error) {
	defer m.dropAll() // of a conversation not known here
	return db.DeleteMemory(ctx, m.pool, id)
}

// DeleteKnowledge removes a knowledge entry, its sources, its Markdown file
// and that file's place in the knowledge-base index.
func (m *Memory) DeleteKnowledge(ctx context.Context, id int64) error {
	e, err := db.DeleteKnowledge(ctx, m.pool, id)
	if err != nil {
		return err
	}
	m.dropSpace(Space(e.Space))
	if e.FilePath == "" || m.opts.KnowledgeDir == "" || !filepath.IsLocal(filepath.FromSlash(e.FilePath)) {
		return nil
	}
	if err := os.Remove(filepath.Join(m.opts.KnowledgeDir, filepath.FromSlash(e.FilePath))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete knowledge %d file %s: %w", id, e.FilePath, err)
	}
	if _, err := db.DeleteLocalDocs(ctx, m.pool, []string{e.FilePath}); err != nil {
		return fmt.Errorf("delete knowledge %d: %w", id, err)
	}
	return nil
}

// KBFile is one file of the knowledge-base folder.
type KBFile struct {
	Path      string    `json:"path"` // relative, slash-separated
	Title     string    `json:"title"`
	Size      int64     `json:"size"` // bytes on disk
	Modified  time.Time `json:"modified"`
	Indexed   bool      `json:"indexed"`    // embedded with the current model
	IndexedAt time.Time `json:"indexed_at"` // zero when not indexed
}

// KBStatus is the knowledge base as the admin page shows it.
type KBStatus struct {
	Dir        string    `json:"dir"`
	EmbedModel string    `json:"embed_model"`
	Files      []KBFile  `json:"files"`
	TotalSize  int64     `json:"total_size"`
	LastSync   time.Time `json:"last_sync"`            // zero before the first sync
	SyncError  string    `json:"sync_error,omitempty"` // what the last sync reported
}

type syncRecord struct {
	At    time.Time `json:"at"`
	Error string    `json:"error,omitempty"`
}

// noteSync keeps when a sync ran and how it ended.
func (m *Memory) noteSync(ctx context.Context, err error) {
	if m.opts.KnowledgeDir == "" || m.opts.Ollama == nil || ctx.Err() != nil {
		return
	}
	rec := syncRecord{At: m.opts.Now().UTC()}
	if err != nil {
		rec.Error = err.Error()
	}
	b, _ := json.Marshal(rec)
	if serr := db.SetSetting(context.WithoutCancel(ctx), m.pool, kbSyncKey, b); serr != nil {
		m.log.Warn("record knowledge base sync", "err", serr)
	}
}

// KnowledgeBase lists the folder's Markdown files with their size and
// whether they are indexed, the embedding model and the last sync.
func (m *Memory) KnowledgeBase(ctx context.Context) (KBStatus, error) {
	st := KBStatus{Dir: m.opts.KnowledgeDir, EmbedModel: m.opts.EmbedModel, Files: []KBFile{}}
	if b, err := db.Setting(ctx, m.pool, kbSyncKey); err == nil {
		var rec syncRecord
		if json.Unmarshal(b, &rec) == nil {
			st.LastSync, st.SyncError = rec.At, rec.Error
		}
	} else if !errors.Is(err, db.ErrNotFound) {
		return st, err
	}
	if st.Dir == "" {
		return st, nil
	}
	infos, err := db.LocalDocInfos(ctx, m.pool)
	if err != nil {
		return st, err
	}
	indexed := make(map[string]db.LocalDocInfo, len(infos))
	for _, d := range infos {
		indexed[d.Path] = d
	}
	files, err := markdownFiles(st.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("knowledge base %s: %w", st.Dir, err)
	}
	for _, rel := range files {
		fi, err := os.Stat(filepath.Join(st.Dir, filepath.FromSlash(rel)))
		if err != nil {
			continue // removed since the walk
		}
		f := KBFile{Path: rel, Title: strings.TrimSuffix(path.Base(rel), path.Ext(rel)), Size: fi.Size(), Modified: fi.ModTime().UTC()}
		if d, ok := indexed[rel]; ok {
			f.Title, f.IndexedAt = d.Title, d.UpdatedAt
			f.Indexed = d.EmbeddingModel == st.EmbedModel
		}
		st.TotalSize += f.Size
		st.Files = append(st.Files, f)
	}
	return st, nil
}

// KnowledgeBaseFile reads one file of the knowledge-base folder. rel must
// be a relative, slash-separated path inside the folder: "..", absolute
// paths and symbolic links out of it are ErrBadPath; a missing file wraps
// fs.ErrNotExist.
func (m *Memory) KnowledgeBaseFile(rel string) (string, error) {
	if m.opts.KnowledgeDir == "" {
		return "", fmt.Errorf("read knowledge base file %q: %w", rel, fs.ErrNotExist)
	}
	clean := filepath.FromSlash(rel)
	if rel == "" || strings.Contains(rel, "\\") || !filepath.IsLocal(clean) || slices.Contains(strings.Split(rel, "/"), "..") {
		return "", fmt.Errorf("read knowledge base file %q: %w", rel, ErrBadPath)
	}
	f, err := os.OpenInRoot(m.opts.KnowledgeDir, clean)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("read knowledge base file %q: %w", rel, err)
		}
		return "", fmt.Errorf("read knowledge base file %q: %w: %w", rel, ErrBadPath, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxKBFileBytes))
	if err != nil {
		return "", fmt.Errorf("read knowledge base file %q: %w", rel, err)
	}
	return strings.ToValidUTF8(string(b), "�"), nil
}

// backfillBatch is how many messages one background job tags.
const backfillBatch = 10

// BackfillTags queues tags for up to limit of the newest untagged messages,
// in the background (batches of 10, kagome nouns, no model call). It
// returns how many were queued.
func (m *Memory) BackfillTags(ctx context.Context, limit int) (int, error) {
	msgs, err := db.UntaggedMessages(ctx, m.pool, limit)
	if err != nil {
		return 0, err
	}
	queued := 0
	for start := 0; start < len(msgs); start += backfillBatch {
		batch := msgs[start:min(start+backfillBatch, len(msgs))]
		if !m.bg.run(func(ctx context.Context) {
			spaces := map[int64]Space{} // session id -> its space, whose word pool ranks the tags
			for _, msg := range batch {
				space, ok := spaces[msg.SessionID]
				if !ok {
					s, err := db.SessionItemByID(ctx, m.pool, msg.SessionID)
					if err != nil {
						m.log.Warn("backfill tags: session of a message", "message_id", msg.ID, "err", err)
						continue
					}
					space = Space(s.Space)
					spaces[msg.SessionID] = space
				}
				m.tagTurn(ctx, space, []db.Message{msg})
			}
		}) {
			break
		}
		queued += len(batch)
	}
	return queued, nil
}
