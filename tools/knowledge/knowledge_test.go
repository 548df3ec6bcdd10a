package knowledge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools/knowledge"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestReadKnowledge(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	m := memory.New(pool, memory.Options{})
	if _, err := db.InsertKnowledge(ctx, pool, db.KnowledgeParams{Space: "web",
		Title: "猫の日", Body: "2月22日です。", Query: "猫の日 いつ",
		Sources:   []db.KnowledgeSource{{URL: "https://a.example/", Title: "A"}, {URL: "https://b.example/"}},
		CreatedAt: time.Date(2026, 2, 21, 20, 0, 0, 0, time.UTC),
	}); err != nil {
		t.Fatal(err)
	}
	tool := knowledge.Tool(m, time.FixedZone("JST", 9*3600))
	got, err := tool.Execute(ctx, json.RawMessage(`{"id":1}`))
	want := "# 猫の日\n(knowledge 1, from the search \"猫の日 いつ\" on 2026-02-22)\n\n2月22日です。\n\nSources:\n1. A https://a.example/\n2.  https://b.example/"
	if err != nil || got != want {
		t.Errorf("got %q, %v\nwant %q", got, err, want)
	}
	if _, err := tool.Execute(ctx, json.RawMessage(`{"id":7}`)); err == nil || !strings.Contains(err.Error(), "no knowledge entry 7: use an id from the knowledge headings") {
		t.Errorf("missing entry: %v", err)
	}
}
