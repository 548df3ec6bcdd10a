package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/memory/wordpool"
)

// bigTables are the tables that grow with the history: a statement on a
// turn's path must never read one of them whole.
var bigTables = []string{"messages", "memories", "message_tags", "memory_tags", "knowledge_entries", "knowledge_sources"}

// planHistory is the history the plan test runs on: a million messages
// (built once per migration set, about half a minute; copied in seconds
// afterwards), a hundred thousand with -short.
func planHistory() dbtest.History {
	if testing.Short() {
		return dbtest.History{Messages: 100_000}
	}
	return dbtest.History{Messages: 1_000_000}
}

// TestTurnStatementsUseIndexes runs ten turns in a conversation of a
// million-message history — the reply chain, the context, recording,
// the reply ids, tags, the word pool, the summary the tenth turn brings
// (archiving, folding), topics and a search result learnt as knowledge —
// records every statement they send, and fails when the plan of any of
// them reads a big table with a sequential scan. Those plans are what
// make a turn slow years from now while it is fast in a fresh database.
func TestTurnStatementsUseIndexes(t *testing.T) {
	ctx := context.Background()
	h := planHistory()
	rec := &statementRecorder{}
	u := dbtest.HistoryURL(t, h)
	pool := tracedPool(t, u, rec)
	plain, err := db.Open(ctx, u) // the test's own queries, not traced
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(plain.Close)
	f := newFixture(t)
	words := wordpool.NewSpaces(pool, 0, 0, nil)
	f.opts.Words = func(ctx context.Context, s memory.Space) memory.WordPool { return words.Pool(ctx, string(s)) }
	f.pool = pool
	m := f.memory(t, nil)

	keyText, guild, spaceText := h.Session(0)
	key, space := memory.SessionKey(keyText), memory.Space(spaceText)
	perSession := h.Messages / 1000
	replyTo := h.PlatformID(0, perSession-1) // the bot's latest answer
	// The tokenizer's dictionary is loaded first, as in a running bot: the
	// first turn's tags would load it, a few hundred ms of CPU and garbage
	// collection that the statements timed beside it showed (20–50 ms for
	// a one-row read).
	wordpool.Nouns("ラーメン")
	rec.start()
	for i := range 10 {
		chain, err := m.StoredReplyChain(ctx, key, replyTo, memory.MaxReplyChain)
		if err != nil || len(chain) == 0 {
			t.Fatalf("turn %d: reply chain of %s = %d messages, %v", i, replyTo, len(chain), err)
		}
		text := fmt.Sprintf("ラーメンの話の続きです (%d)", i)
		if _, err := m.Context(ctx, key, space, text, memory.WithReplyChain(chain)); err != nil {
			t.Fatal(err)
		}
		userID, replyID := fmt.Sprintf("9%017d", 2*i), fmt.Sprintf("9%017d", 2*i+1)
		err = m.Record(ctx, key, memory.Turn{
			Source: "discord", GuildID: guild, ChannelID: strings.TrimPrefix(keyText, "discord:channel:"), Space: space,
			User:  memory.MessageRecord{AuthorID: "400000000000000001", AuthorName: "alice", Content: text, PlatformMessageID: userID, ReplyTo: replyTo},
			Reply: memory.MessageRecord{Content: "ラーメンは醤油が好きです。", Model: "qwen3:4b"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.RecordReplyIDs(ctx, key, userID, []string{replyID}); err != nil {
			t.Fatal(err)
		}
		replyTo = replyID
	}
	eventually(t, "the ten turns tagged and summarised", func() bool {
		return f.model.summaries.Load() > 0 && count(t, plain, `SELECT count(*) FROM messages m
WHERE m.created_at > now() - interval '1 hour' AND NOT EXISTS (SELECT 1 FROM message_tags t WHERE t.message_id = m.id)`) == 0 &&
			count(t, plain, "SELECT count(*) FROM messages WHERE session_id = (SELECT id FROM sessions WHERE key = $1) AND archived_at IS NULL", keyText) < 30
	})
	if _, err := m.RelatedTopic(ctx, space, "ラーメン"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.RecentTopic(ctx, space); err != nil {
		t.Fatal(err)
	}
	result := `[{"title":"ラーメンの歴史","href":"https://example.com/ramen","body":"ラーメンは…"}]`
	for range 2 { // the second time, the entry is already known
		if _, err := m.Learn(ctx, memory.LearnInput{Tool: "web_search", Query: "ラーメン 歴史", Session: key, Space: space, Result: result}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := m.Knowledge(ctx, space, 1); err != nil {
		t.Fatal(err)
	}
	// The fixture's spaces have saved word pools, which seeded the pool
	// above; a space without one seeds from its latest messages.
	if texts, err := db.RecentUserTexts(ctx, pool, spaceText, wordpool.DefaultSize); err != nil || len(texts) == 0 {
		t.Fatalf("word-pool seed from messages: %d texts, %v", len(texts), err)
	}
	// And a process's first knowledge-base sync looks for entries from
	// before spaces.
	if _, err := db.UnfiledKnowledge(ctx, pool); err != nil {
		t.Fatal(err)
	}
	stmts := rec.stop()
	t.Run("turn", func(t *testing.T) { checkPlans(t, pool, stmts) })

	// The admin page and the commands: the lists, a conversation's pages
	// (the newest and one deep in it), the logs, /memory, and deleting
	// summaries and conversations, with the purge that follows (scheduler's
	// purge: the forgotten summaries, each with those folded into it; the
	// deleted sessions, a batch of a thousand messages, the session row).
	// (What a delete cascades to
	// is checked by db's TestForeignKeysOfBigTablesAreIndexed: EXPLAIN does
	// not show it.)
	rec.start()
	other, _, _ := h.Session(1)
	sess, err := db.SessionByKey(ctx, pool, other)
	if err != nil {
		t.Fatal(err)
	}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.ListSessions(ctx, pool, db.SessionFilter{}))
	must(db.ListSessions(ctx, pool, db.SessionFilter{Space: spaceText}))
	page, err := db.SessionMessagesBefore(ctx, pool, sess.ID, 0, 100)
	if err != nil || len(page) != 100 {
		t.Fatalf("first page: %d messages, %v", len(page), err)
	}
	must(db.SessionMessagesBefore(ctx, pool, sess.ID, page[0].ID-int64(h.Messages/2), 100))
	must(db.APILogsBefore(ctx, pool, 1<<62, 50))
	must(db.ListMemories(ctx, pool, 0, 500))
	must(db.ListMemories(ctx, pool, sess.ID, 500))
	must(db.ListKnowledge(ctx, pool, 1<<62, 50))
	must(m.Summaries(ctx, memory.SessionKey(other)))
	must(db.Settings(ctx, pool, []string{"a", "b"}))
	live, err := db.LiveMemories(ctx, pool, sess.ID)
	if err != nil || len(live) == 0 {
		t.Fatalf("live summaries: %d, %v", len(live), err)
	}
	must(m.DeleteSummary(ctx, live[0].ID))
	must(m.ForgetSummaries(ctx, memory.SessionKey(other)))
	must(m.Forget(ctx, memory.SessionKey(other)))
	forgotten, err := db.ForgottenMemoryIDs(ctx, pool, 100)
	if err != nil || len(forgotten) == 0 {
		t.Fatalf("forgotten summaries: %v, %v", forgotten, err)
	}
	if n, err := db.PurgeForgottenMemory(ctx, pool, forgotten[0]); err != nil || n == 0 {
		t.Fatalf("purge of a forgotten summary: %d deleted, %v", n, err)
	}
	must(nil, db.DeleteSession(ctx, pool, sess.ID))
	must(db.DeletedSessionIDs(ctx, pool, 100))
	if n, err := db.PurgeSessionMessages(ctx, pool, sess.ID, 1000); err != nil || n != int64(min(perSession, 1000)) {
		t.Fatalf("purge batch: %d messages deleted, %v", n, err)
	}
	must(nil, db.PurgeSession(ctx, pool, sess.ID))
	stmts = rec.stop()
	t.Run("admin", func(t *testing.T) { checkPlans(t, pool, stmts) })
}

// checkPlans explains each statement with its arguments and fails the test
// for every plan that scans a big table sequentially: as planned at this
// size (a table of fewer than 10,000 rows may be read whole), and as
// planned when sequential scans are all but forbidden, which finds the
// statements no index serves whatever the size.
func checkPlans(t *testing.T, pool *pgxpool.Pool, stmts []statement) {
	t.Helper()
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	small := map[string]bool{}
	rows, err := conn.Query(ctx, "SELECT relname FROM pg_class WHERE relname = ANY($1) AND reltuples < 10000", bigTables)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		small[n] = true
	}
	explain := func(s statement, seqscan string) []string {
		if _, err := conn.Exec(ctx, "SET enable_seqscan = "+seqscan); err != nil {
			t.Fatal(err)
		}
		var plan []byte
		if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+s.sql, s.args...).Scan(&plan); err != nil {
			t.Errorf("explain %s: %v", oneLineSQL(s.sql), err)
			return nil
		}
		return seqScans(t, plan)
	}
	defer conn.Exec(ctx, "RESET enable_seqscan") //nolint:errcheck

	seen := map[string]bool{}
	checked := 0
	for _, s := range stmts {
		if !explainable(s.sql) || seen[s.sql] {
			continue
		}
		seen[s.sql] = true
		checked++
		var bad []string
		for _, rel := range explain(s, "on") {
			if !small[rel] {
				bad = append(bad, rel)
			}
		}
		for _, rel := range explain(s, "off") {
			bad = append(bad, rel+" (no index serves it)")
		}
		if len(bad) > 0 {
			t.Errorf("sequential scan of %s in\n  %s\n(took %v)", strings.Join(slices.Compact(bad), ", "), oneLineSQL(s.sql), s.took)
		}
	}
	slices.SortFunc(stmts, func(a, b statement) int { return int(b.took - a.took) })
	for _, s := range stmts[:min(5, len(stmts))] {
		t.Logf("%8v  %s", s.took.Round(10*time.Microsecond), oneLineSQL(s.sql))
	}
	t.Logf("%d statements run, %d distinct ones explained", len(stmts), checked)
}

func explainable(sql string) bool {
	w := strings.ToUpper(strings.Fields(sql + " x")[0])
	return w == "SELECT" || w == "INSERT" || w == "UPDATE" || w == "DELETE" || w == "WITH"
}

// seqScans returns the big tables a JSON plan reads with a sequential scan.
func seqScans(t *testing.T, plan []byte) []string {
	t.Helper()
	var doc []struct{ Plan map[string]any }
	if err := json.Unmarshal(plan, &doc); err != nil {
		t.Fatalf("plan: %v", err)
	}
	var out []string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if n["Node Type"] == "Seq Scan" {
			if rel, _ := n["Relation Name"].(string); slices.Contains(bigTables, rel) {
				out = append(out, rel)
			}
		}
		kids, _ := n["Plans"].([]any)
		for _, k := range kids {
			if km, ok := k.(map[string]any); ok {
				walk(km)
			}
		}
	}
	for _, d := range doc {
		walk(d.Plan)
	}
	return out
}

func oneLineSQL(sql string) string { return strings.Join(strings.Fields(sql), " ") }

// statement is one statement sent to the database, with its arguments and
// how long it took.
type statement struct {
	sql  string
	args []any
	took time.Duration
}

// statementRecorder is a pgx tracer keeping the statements sent between
// start and stop.
type statementRecorder struct {
	mu    sync.Mutex
	on    bool
	stmts []statement
}

type traceKey struct{}

type traced struct {
	statement
	at time.Time
}

func (r *statementRecorder) start() {
	r.mu.Lock()
	r.on, r.stmts = true, nil
	r.mu.Unlock()
}

func (r *statementRecorder) stop() []statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.stmts
}

// TraceQueryStart implements pgx.QueryTracer.
func (r *statementRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	return context.WithValue(ctx, traceKey{}, &traced{statement: statement{sql: d.SQL, args: slices.Clone(d.Args)}, at: time.Now()})
}

// TraceQueryEnd implements pgx.QueryTracer.
func (r *statementRecorder) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	tr, ok := ctx.Value(traceKey{}).(*traced)
	if !ok || d.Err != nil {
		return
	}
	tr.took = time.Since(tr.at)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on {
		r.stmts = append(r.stmts, tr.statement)
	}
}

// TraceBatchStart implements pgx.BatchTracer: a batch's reads (the
// context's) are recorded one by one.
func (r *statementRecorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

// TraceBatchQuery implements pgx.BatchTracer.
func (r *statementRecorder) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	if d.Err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on {
		r.stmts = append(r.stmts, statement{sql: d.SQL, args: slices.Clone(d.Args)})
	}
}

// TraceBatchEnd implements pgx.BatchTracer.
func (r *statementRecorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// tracedPool opens url as db.Open does, with rec tracing every statement.
func tracedPool(t testing.TB, url string, rec pgx.QueryTracer) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	cfg.ConnConfig.Tracer = rec
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

var (
	_ pgx.QueryTracer = (*statementRecorder)(nil)
	_ pgx.BatchTracer = (*statementRecorder)(nil)
)
