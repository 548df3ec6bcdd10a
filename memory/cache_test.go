package memory_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory"
)

// twoProcesses is one database and two Memory instances on pools of their
// own, each with its context cache on and listening, as two yorozu
// processes would be.
type twoProcesses struct {
	a, b         *memory.Memory
	poolA, poolB *pgxpool.Pool
}

func newTwoProcesses(t *testing.T, mod func(*memory.Options)) twoProcesses {
	t.Helper()
	url := dbtest.URL(t)
	open := func() (*pgxpool.Pool, *memory.Memory) {
		pool, err := db.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		o := memory.Options{Location: time.UTC, ContextCache: memory.DefaultContextCache, DefaultSpace: cacheSpace}
		if mod != nil {
			mod(&o)
		}
		m := memory.New(pool, o)
		t.Cleanup(m.Close)
		return pool, m
	}
	var p twoProcesses
	p.poolA, p.a = open()
	p.poolB, p.b = open()
	eventually(t, "both caches listening", func() bool { return memory.CacheOn(p.a) && memory.CacheOn(p.b) })
	return p
}

const cacheSpace = memory.Space("guild:g1")

var cacheKeyC1 = memory.DiscordChannel("c1")

// turn is the n-th turn of a test conversation, asked at t0 + n minutes.
func turn(n int) memory.Turn {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute)
	return memory.Turn{
		Source: "discord", GuildID: "g1", ChannelID: "c1",
		User: memory.MessageRecord{AuthorID: "u1", AuthorName: "たろう", Content: fmt.Sprintf("質問%d", n),
			PlatformMessageID: fmt.Sprintf("q%d", n), At: at},
		Reply: memory.MessageRecord{Content: fmt.Sprintf("答え%d", n), Model: "qwen3:4b", At: at.Add(time.Second)},
	}
}

// contextText is the context m gives for the next turn of c1, as one text.
func contextText(t testing.TB, m *memory.Memory, opts ...memory.ContextOption) string {
	t.Helper()
	msgs, err := m.Context(context.Background(), cacheKeyC1, cacheSpace, "次は?", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return joined(msgs)
}

// hitsOf runs fn and says how many context reads the cache of m answered
// and how many went to the database meanwhile.
func hitsOf(m *memory.Memory, fn func()) (hits, misses int64) {
	h0, m0 := memory.CacheStats(m)
	fn()
	h1, m1 := memory.CacheStats(m)
	return h1 - h0, m1 - m0
}

func TestBeginShowsTheTurnAtOnceAndOnce(t *testing.T) {
	ctx := context.Background()
	p := newTwoProcesses(t, nil)
	if err := p.a.Record(ctx, cacheKeyC1, turn(1)); err != nil {
		t.Fatal(err)
	}
	contextText(t, p.a) // read once: cached

	commit := p.a.Begin(cacheKeyC1, turn(2))
	got := contextText(t, p.a)
	if strings.Count(got, "たろう: 質問2") != 1 || strings.Count(got, "答え2") != 1 || !strings.Contains(got, "たろう: 質問1") {
		t.Fatalf("context before commit:\n%s\nwant turns 1 and 2, each once", got)
	}
	if strings.Index(got, "質問1") > strings.Index(got, "質問2") {
		t.Errorf("turn 2 before turn 1:\n%s", got)
	}
	if other := contextText(t, p.b); strings.Contains(other, "質問2") {
		t.Errorf("another process sees a turn not stored yet:\n%s", other)
	}

	if err := commit(ctx); err != nil {
		t.Fatal(err)
	}
	hits, misses := hitsOf(p.a, func() { got = contextText(t, p.a) })
	if strings.Count(got, "質問2") != 1 || strings.Count(got, "答え2") != 1 {
		t.Fatalf("context after commit:\n%s\nwant turn 2 once", got)
	}
	if hits != 1 || misses != 0 {
		t.Errorf("after its own commit: %d hits, %d reads of the database; want the cache kept up to date in place", hits, misses)
	}
	eventually(t, "the other process to see turn 2", func() bool {
		return strings.Count(contextText(t, p.b), "質問2") == 1
	})
	if err := commit(ctx); err == nil {
		t.Error("a second commit succeeded")
	}
	if n := count(t, p.poolA, "SELECT count(*) FROM messages WHERE content IN ('質問2', '答え2')"); n != 2 {
		t.Errorf("%d messages of turn 2 stored, want 2", n)
	}
}

func TestBeginWhileTheCommitWaits(t *testing.T) {
	ctx := context.Background()
	p := newTwoProcesses(t, nil)
	if err := p.a.Record(ctx, cacheKeyC1, turn(1)); err != nil {
		t.Fatal(err)
	}
	// Another transaction holds the session's row: the commit waits for it,
	// and the context is read while the commit is in flight.
	tx, err := p.poolB.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT 1 FROM sessions WHERE key = $1 FOR UPDATE", string(cacheKeyC1)); err != nil {
		t.Fatal(err)
	}
	commit := p.a.Begin(cacheKeyC1, turn(2))
	done := make(chan error, 1)
	go func() { done <- commit(ctx) }()
	eventually(t, "the commit to wait for the row", func() bool {
		return count(t, p.poolB, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()") > 0
	})
	for range 3 {
		if got := contextText(t, p.a); strings.Count(got, "質問2") != 1 {
			t.Fatalf("context while the commit waits:\n%s\nwant turn 2 once", got)
		}
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := contextText(t, p.a); strings.Count(got, "質問2") != 1 || strings.Count(got, "答え2") != 1 {
		t.Fatalf("context after the commit:\n%s\nwant turn 2 once", got)
	}
}

// TestBeginRacingContexts starts contexts while commits run, with the cache
// on and off: every context begun after a turn's Begin shows it exactly
// once, whenever its commit ends.
func TestBeginRacingContexts(t *testing.T) {
	for _, cached := range []bool{true, false} {
		t.Run(fmt.Sprint("cache=", cached), func(t *testing.T) {
			ctx := context.Background()
			var m *memory.Memory
			if cached {
				m = newTwoProcesses(t, nil).a
			} else {
				m = memory.New(dbtest.New(t), memory.Options{Location: time.UTC, DefaultSpace: cacheSpace})
				t.Cleanup(m.Close)
			}
			for n := range 20 {
				commit := m.Begin(cacheKeyC1, turn(n))
				var wg sync.WaitGroup
				errs := make(chan string, 8)
				for range 4 {
					wg.Go(func() {
						for range 3 {
							msgs, err := m.Context(ctx, cacheKeyC1, cacheSpace, "次は?")
							if err != nil {
								errs <- err.Error()
								return
							}
							got := joined(msgs)
							for i := max(0, n-5); i <= n; i++ {
								if c := strings.Count(got, fmt.Sprintf("質問%d\n", i)); c != 1 {
									errs <- fmt.Sprintf("turn %d shown %d times in:\n%s", i, c, got)
									return
								}
							}
						}
					})
				}
				if err := commit(ctx); err != nil {
					t.Fatal(err)
				}
				wg.Wait()
				close(errs)
				for e := range errs {
					t.Fatal(e)
				}
			}
		})
	}
}

func TestFailedCommitLeavesTheContext(t *testing.T) {
	ctx := context.Background()
	p := newTwoProcesses(t, nil)
	if err := p.a.Record(ctx, cacheKeyC1, turn(1)); err != nil {
		t.Fatal(err)
	}
	contextText(t, p.a)
	bad := turn(2)
	bad.User.Content = "壊れた\x00質問" // Postgres refuses a NUL in text
	commit := p.a.Begin(cacheKeyC1, bad)
	if got := contextText(t, p.a); !strings.Contains(got, "壊れた") {
		t.Fatalf("context before the commit:\n%s\nwant the turn begun", got)
	}
	if err := commit(ctx); err == nil {
		t.Fatal("a turn with a NUL was stored")
	}
	got := contextText(t, p.a)
	if strings.Contains(got, "壊れた") || strings.Contains(got, "答え2") {
		t.Errorf("context after the failed commit:\n%s\nwant the turn gone", got)
	}
	if !strings.Contains(got, "質問1") {
		t.Errorf("context after the failed commit lost turn 1:\n%s", got)
	}
	if n := count(t, p.poolA, "SELECT count(*) FROM messages WHERE content = '答え2'"); n != 0 {
		t.Errorf("%d rows of the failed turn stored", n)
	}
}

func TestReplyIDsReachTheCachedContext(t *testing.T) {
	ctx := context.Background()
	p := newTwoProcesses(t, nil)
	contextText(t, p.a)
	if err := p.a.Record(ctx, cacheKeyC1, turn(1)); err != nil {
		t.Fatal(err)
	}
	if err := p.a.RecordReplyIDs(ctx, cacheKeyC1, "q1", []string{"r1a", "r1b"}); err != nil {
		t.Fatal(err)
	}
	// A reply to the answer: it is among the recent messages, so the reply
	// chain does not repeat it.
	chain := memory.WithReplyChain([]memory.ChainMessage{{ID: "r1b", FromBot: true, Content: "答え1", ReplyTo: "q1"}})
	var got string
	hits, misses := hitsOf(p.a, func() { got = contextText(t, p.a, chain) })
	if strings.Contains(got, "返信先の発言") {
		t.Errorf("the answer replied to is repeated as a reply chain:\n%s", got)
	}
	if hits != 1 || misses != 0 {
		t.Errorf("%d hits, %d reads: the reply ids were not applied in place", hits, misses)
	}
	if got := contextText(t, p.b, chain); strings.Contains(got, "返信先の発言") {
		t.Errorf("other process: the answer replied to is repeated:\n%s", got)
	}
}

// TestOtherProcessChangesReachTheCache: whatever another process (or the
// admin page, or a job) changes of what a context shows reaches this
// process's next context once the database's notice has arrived.
func TestOtherProcessChangesReachTheCache(t *testing.T) {
	ctx := context.Background()
	p := newTwoProcesses(t, nil)
	speaker := memory.WithSpeaker("u1", "たろう")
	for n := 1; n <= 3; n++ {
		if err := p.a.Record(ctx, cacheKeyC1, turn(n)); err != nil {
			t.Fatal(err)
		}
	}
	page, err := p.a.WriteNote(ctx, cacheSpace, db.NoteEditor{}, "買い物", "牛乳", memory.NoteCreate, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.a.SetLinkedNotes(ctx, cacheKeyC1, []int64{page.ID}); err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name   string
		change func(t *testing.T)
		shows  func(text string) bool
	}{
		{"a turn stored by the other process", func(t *testing.T) {
			if err := p.b.Record(ctx, cacheKeyC1, turn(4)); err != nil {
				t.Fatal(err)
			}
		}, func(s string) bool { return strings.Count(s, "質問4") == 1 }},
		{"a note edited on the admin page", func(t *testing.T) {
			if _, err := db.UpdateNoteContent(ctx, p.poolB, page.ID, "牛乳と卵", db.NoteEditor{}); err != nil {
				t.Fatal(err)
			}
		}, func(s string) bool { return strings.Contains(s, "牛乳と卵") }},
		{"the conversation deleted on the admin page", func(t *testing.T) {
			s, err := db.SessionByKey(ctx, p.poolB, string(cacheKeyC1))
			if err != nil {
				t.Fatal(err)
			}
			if err := db.DeleteSession(ctx, p.poolB, s.ID); err != nil {
				t.Fatal(err)
			}
		}, func(s string) bool { return !strings.Contains(s, "リンクされたノート") }},
		{"the conversation brought back", func(t *testing.T) {
			if _, err := p.poolB.Exec(ctx, "UPDATE sessions SET deleted_at = NULL WHERE key = $1", string(cacheKeyC1)); err != nil {
				t.Fatal(err)
			}
		}, func(s string) bool { return strings.Contains(s, "リンクされたノート") }},
		{"a note unlinked", func(t *testing.T) {
			if err := p.b.SetLinkedNotes(ctx, cacheKeyC1, nil); err != nil {
				t.Fatal(err)
			}
		}, func(s string) bool { return !strings.Contains(s, "リンクされたノート") }},
		{"knowledge learned", func(t *testing.T) {
			if _, err := db.InsertKnowledge(ctx, p.poolB, db.KnowledgeParams{Space: string(cacheSpace), Title: "猫の日は2月22日", Body: "本文"}); err != nil {
				t.Fatal(err)
			}
		}, func(s string) bool { return strings.Contains(s, "猫の日は2月22日") }},
		{"a fact added", func(t *testing.T) {
			if _, err := p.b.AddFact(ctx, cacheSpace, "u1", "たろう", "私はエビアレルギー"); err != nil {
				t.Fatal(err)
			}
		}, func(s string) bool { return strings.Contains(s, "エビアレルギー") }},
		{"facts forgotten", func(t *testing.T) {
			if _, err := p.b.ForgetFacts(ctx, cacheSpace, "u1"); err != nil {
				t.Fatal(err)
			}
		}, func(s string) bool { return !strings.Contains(s, "エビアレルギー") }},
		{"messages folded into a summary", func(t *testing.T) {
			err := pgx.BeginFunc(ctx, p.poolB, func(tx pgx.Tx) error {
				s, err := db.SessionByKey(ctx, tx, string(cacheKeyC1))
				if err != nil {
					return err
				}
				mem, err := db.InsertMemory(ctx, tx, db.MemoryParams{SessionID: s.ID, Content: "たろうが質問1と2をした。",
					PeriodStart: turn(1).User.At, PeriodEnd: turn(2).Reply.At})
				if err != nil {
					return err
				}
				_, err = tx.Exec(ctx, "UPDATE messages SET archived_at = now(), memory_id = $2 WHERE session_id = $1 AND content IN ('質問1', '答え1', '質問2', '答え2')", s.ID, mem.ID)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}, func(s string) bool {
			return strings.Contains(s, "たろうが質問1と2をした。") && !strings.Contains(s, "答え1") && strings.Contains(s, "答え3")
		}},
		{"the conversation forgotten (/forget)", func(t *testing.T) {
			if _, err := p.b.Forget(ctx, cacheKeyC1); err != nil {
				t.Fatal(err)
			}
		}, func(s string) bool { return !strings.Contains(s, "答え3") && !strings.Contains(s, "答え4") }},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			// The notices of the writes before may still be coming.
			eventually(t, "the context cached before the change", func() bool {
				hits, _ := hitsOf(p.a, func() { contextText(t, p.a, speaker) })
				return hits == 1
			})
			if st.shows(contextText(t, p.a, speaker)) {
				t.Fatal("the context shows the change before it was made")
			}
			st.change(t)
			eventually(t, "the change in this process's context", func() bool { return st.shows(contextText(t, p.a, speaker)) })
			// And it stays: nothing stale comes back.
			for range 3 {
				if got := contextText(t, p.a, speaker); !st.shows(got) {
					t.Fatalf("the change went away again:\n%s", got)
				}
			}
		})
	}
}

// TestOwnWritesShowAtOnce: what this process writes through Memory is
// in its very next context, without waiting for the notice.
func TestOwnWritesShowAtOnce(t *testing.T) {
	ctx := context.Background()
	p := newTwoProcesses(t, nil)
	if err := p.a.Record(ctx, cacheKeyC1, turn(1)); err != nil {
		t.Fatal(err)
	}
	speaker := memory.WithSpeaker("u1", "たろう")
	contextText(t, p.a, speaker)
	if _, err := p.a.AddFact(ctx, cacheSpace, "u1", "たろう", "私は猫を飼っている"); err != nil {
		t.Fatal(err)
	}
	if got := contextText(t, p.a, speaker); !strings.Contains(got, "猫を飼っている") {
		t.Errorf("own fact not in the next context:\n%s", got)
	}
	if _, err := p.a.WriteNote(ctx, cacheSpace, db.NoteEditor{}, "予定", "金曜に集まる", memory.NoteCreate, ""); err != nil {
		t.Fatal(err)
	}
	if got := contextText(t, p.a, speaker); !strings.Contains(got, "金曜に集まる") {
		t.Errorf("own note not in the next context:\n%s", got)
	}
	if err := p.a.ForgetTurn(ctx, cacheKeyC1, "q1"); err != nil {
		t.Fatal(err)
	}
	if got := contextText(t, p.a, speaker); strings.Contains(got, "質問1") {
		t.Errorf("forgotten turn still in the next context:\n%s", got)
	}
}

// TestCacheOffWhileNotListening: when the listening connection is lost,
// changes made meanwhile are never read stale, and caching resumes once it
// listens again.
func TestCacheOffWhileNotListening(t *testing.T) {
	ctx := context.Background()
	p := newTwoProcesses(t, nil)
	if err := p.a.Record(ctx, cacheKeyC1, turn(1)); err != nil {
		t.Fatal(err)
	}
	contextText(t, p.a)
	if hits, _ := hitsOf(p.a, func() { contextText(t, p.a) }); hits != 1 {
		t.Fatal("not cached before the connection is lost")
	}
	listens := memory.CacheListens(p.a)
	var killed int
	if err := p.poolB.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE application_name = $1 AND datname = current_database()`, db.ContextListenerName).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 2 {
		t.Fatalf("terminated %d listeners, want 2", killed)
	}
	// Written while nobody listens: the notice is lost.
	if err := p.b.Record(ctx, cacheKeyC1, turn(2)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the cache to listen again", func() bool { return memory.CacheListens(p.a) > listens })
	if got := contextText(t, p.a); !strings.Contains(got, "質問2") {
		t.Fatalf("stale context after the listener came back:\n%s", got)
	}
	if hits, misses := hitsOf(p.a, func() { contextText(t, p.a) }); hits != 1 || misses != 0 {
		t.Errorf("after reconnecting: %d hits, %d reads; want caching again", hits, misses)
	}
	// Notices reach it again.
	if err := p.b.Record(ctx, cacheKeyC1, turn(3)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a change after reconnecting", func() bool { return strings.Contains(contextText(t, p.a), "質問3") })
}

func TestContextCacheBounded(t *testing.T) {
	ctx := context.Background()
	const entries = 3
	p := newTwoProcesses(t, func(o *memory.Options) { o.ContextCache = entries })
	keys := make([]memory.SessionKey, 5)
	for i := range keys {
		keys[i] = memory.DiscordChannel(fmt.Sprint("c", i))
		if err := p.a.Record(ctx, keys[i], turn(i)); err != nil {
			t.Fatal(err)
		}
	}
	read := func(k memory.SessionKey) (hit bool) {
		h, _ := hitsOf(p.a, func() {
			if _, err := p.a.Context(ctx, k, cacheSpace, "次は?"); err != nil {
				t.Fatal(err)
			}
		})
		return h == 1
	}
	for _, k := range keys[:3] {
		read(k)
	}
	if !read(keys[0]) {
		t.Error("the first conversation is not cached")
	}
	read(keys[3]) // evicts keys[1], the least recently used
	if n, _ := memory.CacheSize(p.a); n != entries {
		t.Errorf("%d entries, want %d", n, entries)
	}
	if read(keys[1]) {
		t.Error("the least recently used conversation was kept")
	}
	if !read(keys[0]) {
		t.Error("a recently used conversation was evicted")
	}

	t.Run("bytes", func(t *testing.T) {
		_, one := memory.CacheSize(p.a)
		one /= entries
		small := memory.New(p.poolA, memory.Options{Location: time.UTC, ContextCache: 100, ContextCacheBytes: 2 * one, DefaultSpace: cacheSpace})
		t.Cleanup(small.Close)
		eventually(t, "the cache to listen", func() bool { return memory.CacheOn(small) })
		for _, k := range keys {
			if _, err := small.Context(ctx, k, cacheSpace, "次は?"); err != nil {
				t.Fatal(err)
			}
		}
		if n, bytes := memory.CacheSize(small); bytes > 2*one || n > 2 {
			t.Errorf("%d entries of %d bytes; bound %d bytes", n, bytes, 2*one)
		}
	})
}

// TestCachedTurnMakesNoRoundTrip: a turn in a conversation whose context
// was read lately, and whose last turn this process stored, sends nothing
// to the database before the model call.
func TestCachedTurnMakesNoRoundTrip(t *testing.T) {
	ctx := context.Background()
	rec := &statementRecorder{}
	pool := tracedPool(t, dbtest.URL(t), rec)
	m := memory.New(pool, memory.Options{Location: time.UTC, ContextCache: memory.DefaultContextCache})
	t.Cleanup(m.Close)
	eventually(t, "the cache listening", func() bool { return memory.CacheOn(m) })
	speaker := memory.WithSpeaker("u1", "たろう")
	if err := m.Record(ctx, cacheKeyC1, turn(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Context(ctx, cacheKeyC1, cacheSpace, "次は?", speaker); err != nil {
		t.Fatal(err)
	}
	if err := m.Record(ctx, cacheKeyC1, turn(2)); err != nil {
		t.Fatal(err)
	}
	if err := m.RecordReplyIDs(ctx, cacheKeyC1, "q2", []string{"r2"}); err != nil {
		t.Fatal(err)
	}
	rec.start()
	msgs, err := m.Context(ctx, cacheKeyC1, cacheSpace, "次は?", speaker)
	stmts := rec.stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) > 0 {
		t.Errorf("%d statements for a cached conversation's context, want none; first: %s", len(stmts), oneLineSQL(stmts[0].sql))
	}
	if got := joined(msgs); !strings.Contains(got, "質問1") || !strings.Contains(got, "答え2") {
		t.Errorf("context:\n%s\nwant turns 1 and 2", got)
	}
}

// TestCachedContextReadsAsTheDatabase: with the cache, and with a turn begun
// and not yet stored, the context is exactly what a process without the
// cache reads once the turn is stored — the count and character bounds of
// the history included.
func TestCachedContextReadsAsTheDatabase(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, bounds := range []struct{ messages, chars int }{{6, 100000}, {30, 40}, {5, 25}} {
		t.Run(fmt.Sprintf("max %d messages, %d chars", bounds.messages, bounds.chars), func(t *testing.T) {
			o := memory.Options{Location: time.UTC, Now: func() time.Time { return now },
				MaxMessages: bounds.messages, MaxChars: bounds.chars, DefaultSpace: cacheSpace}
			p := newTwoProcesses(t, func(c *memory.Options) {
				c.Now, c.MaxMessages, c.MaxChars = o.Now, o.MaxMessages, o.MaxChars
			})
			plain := memory.New(p.poolB, o) // no cache: reads the database
			t.Cleanup(plain.Close)
			for n := range 12 {
				tn := turn(n)
				tn.User.Content = strings.Repeat("長", n%4) + fmt.Sprintf("質問%d", n)
				if n%3 == 0 {
					tn.Reply.Content = "" // a failed answer keeps the question alone
				}
				contextText(t, p.a) // cached before the turn
				commit := p.a.Begin(cacheKeyC1, tn)
				begun := contextText(t, p.a)
				if err := commit(ctx); err != nil {
					t.Fatal(err)
				}
				stored := contextText(t, p.a)
				want := contextText(t, plain)
				if begun != want || stored != want {
					t.Fatalf("turn %d: context\nbegun:\n%s\nstored:\n%s\nwant (read from the database):\n%s", n, begun, stored, want)
				}
			}
		})
	}
}

// TestSummaryRewarmsTheCache: once a summary folds a conversation, what the
// cache held of it is read again as it now is, so that the next turn's
// context costs no read — and is what a process without the cache reads.
func TestSummaryRewarmsTheCache(t *testing.T) {
	f := newFixture(t)
	m := f.memory(t, func(o *memory.Options) { o.SummarizeAt, o.ContextCache = 2, memory.DefaultContextCache })
	plain := f.memory(t, func(o *memory.Options) { o.SummarizeAt = 1 << 20 }) // no cache, never summarises
	eventually(t, "the cache listening", func() bool { return memory.CacheOn(m) })
	for n := range 2 {
		contextText(t, m)
		if err := m.Record(context.Background(), cacheKeyC1, turn(n)); err != nil {
			t.Fatal(err)
		}
	}
	contextText(t, m)
	eventually(t, "a summary", func() bool { return count(t, f.pool, "SELECT count(*) FROM memories") > 0 })
	time.Sleep(200 * time.Millisecond) // past the drop that follows the summary's commit
	eventually(t, "the conversation read again", func() bool { n, _ := memory.CacheSize(m); return n == 1 })
	var got string
	if hits, misses := hitsOf(m, func() { got = contextText(t, m) }); hits != 1 || misses != 0 {
		t.Errorf("the turn after the summary: %d hits, %d reads; want it cached", hits, misses)
	}
	if want := contextText(t, plain); got != want || !strings.Contains(got, "先頭=") {
		t.Errorf("context after the summary:\n%s\nwant (read from the database):\n%s", got, want)
	}
}
