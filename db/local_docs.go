package db

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// LocalDoc is a row of local_knowledge_docs: a Markdown file of the knowledge
// base with its embedding.
type LocalDoc struct {
	ID             int64     `db:"id"`
	Path           string    `db:"path"` // relative to the knowledge base folder, slash-separated
	Title          string    `db:"title"`
	Content        string    `db:"content"`
	ContentHash    string    `db:"content_hash"`
	Embedding      []float32 `db:"embedding"`
	EmbeddingModel string    `db:"embedding_model"`
	UpdatedAt      time.Time `db:"updated_at"`
}

// LocalDocStamp is what a sync compares with the file on disk.
type LocalDocStamp struct {
	Path           string `db:"path"`
	ContentHash    string `db:"content_hash"`
	EmbeddingModel string `db:"embedding_model"`
}

// LocalDocStamps returns path, hash and model of every indexed file.
func LocalDocStamps(ctx context.Context, q Querier) ([]LocalDocStamp, error) {
	rows, err := q.Query(ctx, "SELECT path, content_hash, embedding_model FROM local_knowledge_docs")
	if err != nil {
		return nil, fmt.Errorf("local doc stamps: %w", err)
	}
	ss, err := pgx.CollectRows(rows, pgx.RowToStructByName[LocalDocStamp])
	if err != nil {
		return nil, fmt.Errorf("local doc stamps: %w", err)
	}
	return ss, nil
}

// UpsertLocalDoc stores a file's content and embedding under its path.
func UpsertLocalDoc(ctx context.Context, q Querier, d LocalDoc) error {
	if _, err := q.Exec(ctx, `
INSERT INTO local_knowledge_docs (path, title, content, content_hash, embedding, embedding_model, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (path) DO UPDATE SET title = EXCLUDED.title, content = EXCLUDED.content,
    content_hash = EXCLUDED.content_hash, embedding = EXCLUDED.embedding,
    embedding_model = EXCLUDED.embedding_model, updated_at = EXCLUDED.updated_at`,
		d.Path, d.Title, d.Content, d.ContentHash, d.Embedding, d.EmbeddingModel, utcOrNow(d.UpdatedAt)); err != nil {
		return fmt.Errorf("upsert local doc %q: %w", d.Path, err)
	}
	return nil
}

// DeleteLocalDocs removes the files paths from the index and returns how
// many rows went.
func DeleteLocalDocs(ctx context.Context, q Querier, paths []string) (int64, error) {
	tag, err := q.Exec(ctx, "DELETE FROM local_knowledge_docs WHERE path = ANY($1)", paths)
	if err != nil {
		return 0, fmt.Errorf("delete local docs: %w", err)
	}
	return tag.RowsAffected(), nil
}

// LocalDocsByPath returns the indexed files of paths embedded with model.
func LocalDocsByPath(ctx context.Context, q Querier, model string, paths []string) ([]LocalDoc, error) {
	rows, err := q.Query(ctx, `SELECT id, path, title, content, content_hash, embedding, embedding_model, updated_at
FROM local_knowledge_docs WHERE path = ANY($1) AND embedding_model = $2`, paths, model)
	if err != nil {
		return nil, fmt.Errorf("local docs by path: %w", err)
	}
	ds, err := pgx.CollectRows(rows, pgx.RowToStructByName[LocalDoc])
	if err != nil {
		return nil, fmt.Errorf("local docs by path: %w", err)
	}
	return ds, nil
}

// LocalDocText is an indexed file's text.
type LocalDocText struct {
	Path        string `db:"path"`
	Content     string `db:"content"`
	ContentHash string `db:"content_hash"`
}

// LocalDocTexts returns the texts of the indexed files paths.
func LocalDocTexts(ctx context.Context, q Querier, paths []string) ([]LocalDocText, error) {
	rows, err := q.Query(ctx, `SELECT path, content, content_hash FROM local_knowledge_docs WHERE path = ANY($1)`, paths)
	if err != nil {
		return nil, fmt.Errorf("local doc texts: %w", err)
	}
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[LocalDocText])
	if err != nil {
		return nil, fmt.Errorf("local doc texts: %w", err)
	}
	return ts, nil
}

// LocalDocsVersion changes whenever a row of the index is added, changed or
// removed (a counter every such statement moves); readers that cache the
// index compare it to reload.
func LocalDocsVersion(ctx context.Context, q Querier) (string, error) {
	var v int64
	if err := q.QueryRow(ctx, "SELECT version FROM local_docs_version").Scan(&v); err != nil {
		return "", fmt.Errorf("local docs version: %w", err)
	}
	return strconv.FormatInt(v, 10), nil
}

// LocalDocInfo is what the admin page shows of one indexed file.
type LocalDocInfo struct {
	Path           string    `db:"path" json:"path"`
	Title          string    `db:"title" json:"title"`
	Size           int       `db:"size" json:"size"` // bytes of content
	EmbeddingModel string    `db:"embedding_model" json:"embedding_model"`
	UpdatedAt      time.Time `db:"updated_at" json:"updated_at"`
}

// LocalDocInfos lists the indexed files by path, without their content.
func LocalDocInfos(ctx context.Context, q Querier) ([]LocalDocInfo, error) {
	rows, err := q.Query(ctx, `SELECT path, title, octet_length(content) AS size, embedding_model, updated_at
FROM local_knowledge_docs ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("local doc infos: %w", err)
	}
	ds, err := pgx.CollectRows(rows, pgx.RowToStructByName[LocalDocInfo])
	if err != nil {
		return nil, fmt.Errorf("local doc infos: %w", err)
	}
	return ds, nil
}
