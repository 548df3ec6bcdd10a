package db_test

import (
	"context"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// The knowledge base's version moves with every change of the index, in
// this connection's transaction or another's, and stays put otherwise.
func TestLocalDocsVersionFollowsChanges(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	version := func() string {
		t.Helper()
		v, err := db.LocalDocsVersion(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	seen := map[string]bool{}
	changed := func(what string) {
		t.Helper()
		v := version()
		if seen[v] {
			t.Errorf("after %s the version is %s, one seen before", what, v)
		}
		seen[v] = true
	}
	changed("nothing")
	doc := db.LocalDoc{Path: "a.md", Title: "A", Content: "あ", ContentHash: "h1", Embedding: []float32{1, 0}, EmbeddingModel: "bge-m3"}
	if err := db.UpsertLocalDoc(ctx, pool, doc); err != nil {
		t.Fatal(err)
	}
	changed("an insert")
	if v := version(); !seen[v] {
		t.Error("the version moved without a change")
	}
	doc.Content, doc.ContentHash = "い", "h2"
	if err := db.UpsertLocalDoc(ctx, pool, doc); err != nil {
		t.Fatal(err)
	}
	changed("an update")
	if _, err := db.DeleteLocalDocs(ctx, pool, []string{"a.md"}); err != nil {
		t.Fatal(err)
	}
	changed("a delete")
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	doc.Path = "b.md"
	if err := db.UpsertLocalDoc(ctx, tx, doc); err != nil {
		t.Fatal(err)
	}
	if v := version(); !seen[v] {
		t.Error("an uncommitted change is seen by other connections")
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	changed("a committed insert")
}
