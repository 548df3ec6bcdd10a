package memory_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

func joined(msgs []api.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

func TestSpacesKeepTheirMemoryToThemselves(t *testing.T) {
	f := newFixture(t)
	m := f.memory(t, nil)
	ctx := context.Background()
	a, b, dm := memory.GuildSpace("111"), memory.GuildSpace("222"), memory.DMSpace("u1")
	keyA, keyB, keyDM := memory.DiscordChannel("ca"), memory.DiscordChannel("cb"), memory.DiscordDM("d1")

	page, err := m.WriteNote(ctx, a, db.NoteEditor{Name: "たろう"}, "A の合言葉", "やまかわ", memory.NoteCreate, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.WriteNote(ctx, dm, db.NoteEditor{Name: "u1"}, "日記", "ひみつの日記", memory.NoteCreate, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Learn(ctx, memory.LearnInput{Tool: "web_search", Query: "猫の日", Session: keyA, Space: a,
		Result: `[{"title":"猫の日","href":"https://example.com/neko","body":"2月22日"}]`}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.kbDir, "spaces/111/rules.md", "# A のルール\n猫の話は金曜日に")
	writeFile(t, f.kbDir, "shared.md", "# みんなの猫\n猫の共通の資料")
	if err := m.SyncKnowledgeBase(ctx); err != nil {
		t.Fatal(err)
	}

	ctxOf := func(key memory.SessionKey, space memory.Space) string {
		t.Helper()
		msgs, err := m.Context(ctx, key, space, "猫について教えて")
		if err != nil {
			t.Fatal(err)
		}
		return joined(msgs)
	}
	inA, inB, inDM := ctxOf(keyA, a), ctxOf(keyB, b), ctxOf(keyDM, dm)
	for _, want := range []string{"A の合言葉", "猫の日は2月22日", "A のルール", "みんなの猫"} {
		if !strings.Contains(inA, want) {
			t.Errorf("server A's prompt lacks %q:\n%s", want, inA)
		}
	}
	for _, leak := range []string{"A の合言葉", "猫の日は2月22日", "A のルール", "ひみつの日記"} {
		if strings.Contains(inB, leak) {
			t.Errorf("server B's prompt shows %q:\n%s", leak, inB)
		}
	}
	if !strings.Contains(inB, "みんなの猫") {
		t.Errorf("the shared knowledge base is missing from server B's prompt:\n%s", inB)
	}
	if !strings.Contains(inDM, "ひみつの日記") || strings.Contains(inA, "ひみつの日記") {
		t.Error("the DM user's note is not theirs alone")
	}

	// By id or by title, another space's page and entry are not found.
	for _, q := range []string{page.Title, "[" + strconv.FormatInt(page.ID, 10) + "]"} {
		if _, err := m.ReadNote(ctx, b, q); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("ReadNote(B, %q) = %v; want not found", q, err)
		}
		if p, err := m.ReadNote(ctx, a, q); err != nil || p.ID != page.ID {
			t.Errorf("ReadNote(A, %q) = %v", q, err)
		}
	}
	if _, err := m.WriteNote(ctx, b, db.NoteEditor{}, page.Title, "上書き", memory.NoteReplace, ""); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("replacing A's page from B: %v; want not found", err)
	}
	if _, _, err := m.Knowledge(ctx, b, 1); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("Knowledge(B, A's entry) = %v; want not found", err)
	}
	if _, err := os.Stat(filepath.Join(f.kbDir, "web_search", "guild-111")); err != nil {
		t.Errorf("A's finding is not in its space's folder: %v", err)
	}
}

func TestReplacedNoteCanBeRestored(t *testing.T) {
	f := newFixture(t)
	m := f.memory(t, nil)
	ctx := context.Background()
	s := memory.GuildSpace("111")
	if _, err := m.WriteNote(ctx, s, db.NoteEditor{Name: "たろう"}, "買い物", "牛乳\n卵", memory.NoteCreate, ""); err != nil {
		t.Fatal(err)
	}
	p, err := m.WriteNote(ctx, s, db.NoteEditor{Name: "いたずら", SessionKey: "discord:channel:1"}, "買い物", "消した", memory.NoteReplace, "")
	if err != nil {
		t.Fatal(err)
	}
	revs, err := m.NoteRevisions(ctx, p.ID)
	if err != nil || len(revs) != 1 || revs[0].ChangedBy != "いたずら" || revs[0].Content != "牛乳\n卵" {
		t.Fatalf("revisions = %+v, %v", revs, err)
	}
	back, err := m.RestoreNote(ctx, revs[0].ID, db.NoteEditor{Name: "admin"})
	if err != nil || back.Content != "牛乳\n卵" {
		t.Fatalf("restore = %+v, %v", back, err)
	}
	if p, _ := m.ReadNote(ctx, s, "買い物"); p.Content != "牛乳\n卵" {
		t.Errorf("after restore the page reads %q", p.Content)
	}
}

func TestDefaultSpaceIsTheOnlyServer(t *testing.T) {
	f := newFixture(t)
	m := f.memory(t, nil)
	ctx := context.Background()
	if s, err := m.DefaultSpace(ctx); err != nil || s != memory.WebSpace {
		t.Errorf("no server yet: %q, %v; want web", s, err)
	}
	seed(t, m, memory.DiscordChannel("c1"), 1, time.Now())
	if s, err := m.DefaultSpace(ctx); err != nil || s != memory.GuildSpace("g1") {
		t.Errorf("one server: %q, %v; want guild:g1", s, err)
	}
	if err := m.Record(ctx, memory.DiscordChannel("c2"), memory.Turn{Source: "discord", GuildID: "g2",
		User: memory.MessageRecord{Content: "x"}, Reply: memory.MessageRecord{Content: "y"}}); err != nil {
		t.Fatal(err)
	}
	if s, err := m.DefaultSpace(ctx); err != nil || s != memory.WebSpace {
		t.Errorf("two servers: %q, %v; want web", s, err)
	}
	fixed := f.memory(t, func(o *memory.Options) { o.DefaultSpace = memory.GuildSpace("g2") })
	if s, _ := fixed.DefaultSpace(ctx); s != memory.GuildSpace("g2") {
		t.Errorf("configured: %q; want guild:g2", s)
	}
}

// A knowledge file written before spaces (web_search/<file>, which every
// conversation saw) moves to its entry's space folder on the next sync, so
// only that space sees it from then on.
func TestLegacyKnowledgeFileMovesToItsSpace(t *testing.T) {
	f := newFixture(t)
	m := f.memory(t, nil)
	ctx := context.Background()
	a, b := memory.GuildSpace("111"), memory.GuildSpace("222")
	e, err := db.InsertKnowledge(ctx, f.pool, db.KnowledgeParams{Space: string(a), Title: "猫の日", Body: "2月22日"})
	if err != nil {
		t.Fatal(err)
	}
	const old = "web_search/5-neko.md"
	if err := db.SetKnowledgeFile(ctx, f.pool, e.ID, old); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.kbDir, old, "# 猫の日\n猫の日は2月22日、猫の鳴き声から。")
	if err := m.SyncKnowledgeBase(ctx); err != nil {
		t.Fatal(err)
	}
	moved := "web_search/guild-111/5-neko.md"
	if _, err := os.Stat(filepath.Join(f.kbDir, filepath.FromSlash(moved))); err != nil {
		t.Errorf("the file did not move to its space's folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.kbDir, filepath.FromSlash(old))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old file is still there: %v", err)
	}
	if got, _, err := db.KnowledgeByID(ctx, f.pool, e.ID); err != nil || got.FilePath != moved {
		t.Errorf("entry file = %q, %v; want %q", got.FilePath, err, moved)
	}
	ctxOf := func(key memory.SessionKey, space memory.Space) string {
		t.Helper()
		msgs, err := m.Context(ctx, key, space, "猫の日はいつ？猫")
		if err != nil {
			t.Fatal(err)
		}
		return joined(msgs)
	}
	if inA := ctxOf(memory.DiscordChannel("ca"), a); !strings.Contains(inA, "猫の鳴き声から") {
		t.Errorf("server A's prompt lacks its moved finding:\n%s", inA)
	}
	if inB := ctxOf(memory.DiscordChannel("cb"), b); strings.Contains(inB, "猫の鳴き声から") {
		t.Errorf("server B's prompt shows A's finding:\n%s", inB)
	}

	// Once a sync finds nothing left to move, the process stops looking
	// (nothing writes there any more); the next process looks once.
	if err := m.SyncKnowledgeBase(ctx); err != nil {
		t.Fatal(err)
	}
	late, err := db.InsertKnowledge(ctx, f.pool, db.KnowledgeParams{Space: string(a), Title: "犬の日", Body: "11月1日"})
	if err != nil {
		t.Fatal(err)
	}
	const lateOld = "web_search/6-inu.md"
	if err := db.SetKnowledgeFile(ctx, f.pool, late.ID, lateOld); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.kbDir, lateOld, "# 犬の日\n11月1日。")
	if err := m.SyncKnowledgeBase(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := db.KnowledgeByID(ctx, f.pool, late.ID); got.FilePath != lateOld {
		t.Errorf("the same process looked again: the entry moved to %q", got.FilePath)
	}
	if err := f.memory(t, nil).SyncKnowledgeBase(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := db.KnowledgeByID(ctx, f.pool, late.ID); got.FilePath != "web_search/guild-111/6-inu.md" {
		t.Errorf("a new process did not move the entry: %q", got.FilePath)
	}
}
