package dbtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
)

// History is the shape of a fixture database holding years of
// conversations, the way yorozu leaves them: in each conversation users and
// the bot take turns (each reply linked to the message it answers, by row
// id and by Discord message id; some user messages reply to an earlier
// reply), every message carries three tags, all but the newest Live
// messages are archived under a summary of SummaryEvery messages, and all
// but a conversation's newest LiveSummaries summaries are folded. Each
// space also holds knowledge entries (one per KnowledgeEvery messages) and
// a saved word pool of 200 of the words the tags are made of.
//
// Conversation i (from 0) is the Discord channel ChannelBase+i of the server
// GuildBase+i%Spaces; every DMEvery-th conversation is instead a DM, in the
// space of its user. Messages of all conversations interleave in time (and
// so in the table) over Span, ending an hour before the fixture is built.
type History struct {
	Messages       int           // total; rounded down to a multiple of Sessions. Default 1,000,000.
	Sessions       int           // conversations. Default 1,000.
	Spaces         int           // servers. Default 10.
	Live           int           // newest messages per conversation left unarchived. Default 10.
	SummaryEvery   int           // messages per summary. Default 20.
	LiveSummaries  int           // unfolded summaries per conversation. Default 8.
	KnowledgeEvery int           // messages per knowledge entry. Default 1,000.
	DMEvery        int           // every n-th conversation is a DM; 0: default 50, < 0: none.
	Span           time.Duration // how long the history goes back. Default three years.
	ChannelBase    int64         // first channel id. Default 200000000000000001.
	GuildBase      int64         // first server id. Default 300000000000000001.
}

func (h History) withDefaults() History {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&h.Messages, 1_000_000)
	def(&h.Sessions, 1000)
	def(&h.Spaces, 10)
	def(&h.Live, 10)
	def(&h.SummaryEvery, 20)
	def(&h.LiveSummaries, 8)
	def(&h.KnowledgeEvery, 1000)
	if h.DMEvery == 0 {
		h.DMEvery = 50
	}
	if h.Span <= 0 {
		h.Span = 3 * 365 * 24 * time.Hour
	}
	if h.ChannelBase == 0 {
		h.ChannelBase = 200000000000000001
	}
	if h.GuildBase == 0 {
		h.GuildBase = 300000000000000001
	}
	if h.Sessions > h.Messages {
		h.Sessions = h.Messages
	}
	h.Messages -= h.Messages % h.Sessions
	return h
}

// Session returns the key, server id ("" for a DM) and space of
// conversation i.
func (h History) Session(i int) (key, guildID, space string) {
	h = h.withDefaults()
	ch := strconv.FormatInt(h.ChannelBase+int64(i), 10)
	if h.DMEvery > 0 && i%h.DMEvery == h.DMEvery-1 {
		return "discord:dm:" + ch, "", "dm:" + historyUser(i)
	}
	g := strconv.FormatInt(h.GuildBase+int64(i%h.Spaces), 10)
	return "discord:channel:" + ch, g, "guild:" + g
}

// PlatformID returns the Discord id of message j (from 0) of conversation
// i: even j are the users', odd j the bot's replies (every tenth reply was
// sent as two messages; this is the first id).
func (h History) PlatformID(i, j int) string {
	h = h.withDefaults()
	return strconv.FormatInt(platformBase+int64(j)*int64(h.Sessions)+int64(i), 10)
}

const platformBase = 1_100_000_000_000_000_000

func historyUser(i int) string { return strconv.FormatInt(400000000000000001+int64(i%97), 10) }

func (h History) name() string {
	h = h.withDefaults()
	sum := sha256.Sum256([]byte(fmt.Sprintf("history v2 %+v", h)))
	return hex.EncodeToString(sum[:])[:12]
}

// NewHistory returns a pool on a fresh, migrated database holding the
// history h, dropped when the test ends. The history is built once per
// shape and migration set into a template database (with COPY: about ten
// seconds per million messages), so later tests copy it in seconds.
func NewHistory(t testing.TB, h History) *pgxpool.Pool {
	t.Helper()
	return open(t, HistoryURL(t, h))
}

// HistoryURL is NewHistory returning the connection string, for tests that
// hand DATABASE_URL to the app.
func HistoryURL(t testing.TB, h History) string {
	t.Helper()
	return fixtureURL(t, "h"+h.name(), func(ctx context.Context, pool *pgxpool.Pool) error { return LoadHistory(ctx, pool, h) })
}

// NewFixture returns a pool on a fresh copy of the fixture database named
// name (letters and digits), dropped when the test ends. load fills the
// migrated, empty fixture once per migration set; later tests, and later
// runs, copy what it left. A fixture of millions of rows is for
// benchmarks.
func NewFixture(t testing.TB, name string, load func(ctx context.Context, pool *pgxpool.Pool) error) *pgxpool.Pool {
	t.Helper()
	return open(t, fixtureURL(t, "f"+name, load))
}

func open(t testing.TB, u string) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	pool, err := db.Open(ctx, u)
	if err != nil {
		t.Fatalf("dbtest: open fixture database: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func fixtureURL(t testing.TB, name string, load func(ctx context.Context, pool *pgxpool.Pool) error) string {
	t.Helper()
	once.Do(func() { srv, srvErr = setup() })
	if srvErr != nil {
		t.Fatalf("dbtest: no PostgreSQL for tests: %v", srvErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	defer cancel()
	tmpl, err := ensureFixture(ctx, name, load)
	if err != nil {
		t.Fatalf("dbtest: fixture %s: %v", name, err)
	}
	// Copied file by file (PostgreSQL 15 and later): a gigabyte in
	// seconds, where the default strategy writes it all to the WAL.
	options := ""
	var version int
	if err := srv.admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err == nil && version >= 150000 {
		options = " STRATEGY FILE_COPY"
	}
	return createWith(t, tmpl, options)
}

// ensureFixture returns the name of the template database holding the
// fixture name, building it with load unless it exists.
func ensureFixture(ctx context.Context, fixture string, load func(ctx context.Context, pool *pgxpool.Pool) error) (string, error) {
	name := srv.template + "_" + fixture
	prefix := srv.template + "_"
	conn, err := srv.admin.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Release()
	// One lock per fixture: building a big one does not hold up the others.
	lock := fnv.New64a()
	_, _ = lock.Write([]byte(name))
	key := int64(lock.Sum64() >> 1)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		return "", fmt.Errorf("lock fixture %s: %w", name, err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", key) //nolint:errcheck
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", fmt.Errorf("look up fixture %s: %w", name, err)
	}
	if exists {
		return name, nil
	}
	// Fixtures of older migration sets are big and of no more use.
	var stale []string
	rows, err := conn.Query(ctx, `SELECT datname FROM pg_database
WHERE (datname LIKE 'yorozu\_tmpl\_%\_h%' OR datname LIKE 'yorozu\_tmpl\_%\_f%') AND NOT starts_with(datname, $1)`, prefix)
	if err == nil {
		stale, _ = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	for _, d := range stale {
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(d)) // in use: dropped another time
	}

	building := name + "_building"
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(building)+" WITH (FORCE)"); err != nil {
		return "", fmt.Errorf("drop %s: %w", building, err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+quote(building)+" TEMPLATE "+quote(srv.template)); err != nil {
		return "", fmt.Errorf("create %s: %w", building, err)
	}
	pool, err := db.Open(ctx, withDatabase(srv.adminURL, building))
	if err != nil {
		return "", err
	}
	err = load(ctx, pool)
	pool.Close()
	if err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+quote(building)+" RENAME TO "+quote(name)); err != nil {
		return "", fmt.Errorf("rename %s: %w", building, err)
	}
	return name, nil
}

// historyTables are the tables LoadHistory fills, whose secondary indexes
// it drops during the load and builds again after (faster than keeping
// them up to date row by row).
var historyTables = []string{"messages", "memories", "message_tags", "memory_tags", "knowledge_entries", "knowledge_sources"}

// LoadHistory adds the history h to the migrated, empty database of pool
// with COPY, then vacuums and analyses what it loaded, so the planner sees
// the statistics a long-running database would have.
func LoadHistory(ctx context.Context, pool *pgxpool.Pool, h History) error {
	h = h.withDefaults()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	// Foreign keys are sound by construction; without their triggers the
	// load is twice as fast. Only a superuser may skip them.
	if _, err := conn.Exec(ctx, "SET session_replication_role = replica"); err != nil {
		_, _ = conn.Exec(ctx, "RESET session_replication_role")
	}
	defer conn.Exec(context.WithoutCancel(ctx), "RESET session_replication_role") //nolint:errcheck

	rows, err := conn.Query(ctx, `SELECT i.indexname, i.indexdef FROM pg_indexes i
WHERE i.schemaname = current_schema() AND i.tablename = ANY($1)
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`, historyTables)
	if err != nil {
		return fmt.Errorf("history: list indexes: %w", err)
	}
	type index struct{ name, def string }
	indexes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (index, error) {
		var ix index
		return ix, r.Scan(&ix.name, &ix.def)
	})
	if err != nil {
		return fmt.Errorf("history: list indexes: %w", err)
	}
	for _, ix := range indexes {
		if _, err := conn.Exec(ctx, "DROP INDEX "+quote(ix.name)); err != nil {
			return fmt.Errorf("history: drop index %s: %w", ix.name, err)
		}
	}

	g := newHistoryGen(h)
	if err := g.load(ctx, conn.Conn()); err != nil {
		return err
	}

	if _, err := conn.Exec(ctx, "SET maintenance_work_mem = '256MB'"); err != nil {
		return err
	}
	for _, ix := range indexes {
		if _, err := conn.Exec(ctx, ix.def); err != nil {
			return fmt.Errorf("history: build index %s: %w", ix.name, err)
		}
	}
	for _, t := range append([]string{"sessions", "spaces"}, historyTables...) {
		if _, err := conn.Exec(ctx, "VACUUM (ANALYZE) "+quote(t)); err != nil {
			return fmt.Errorf("history: vacuum %s: %w", t, err)
		}
	}
	return nil
}

// historyGen computes the rows of a History.
type historyGen struct {
	h        History
	perSess  int // messages per conversation
	archived int // archived messages per conversation
	chunks   int // summaries per conversation
	start    time.Time
	step     time.Duration // between two consecutive messages of the table
	ids      struct{ sessions, messages, memories, knowledge int64 }
}

func newHistoryGen(h History) *historyGen {
	g := &historyGen{h: h, perSess: h.Messages / h.Sessions}
	g.archived = max(0, g.perSess-h.Live)
	g.chunks = (g.archived + h.SummaryEvery - 1) / h.SummaryEvery
	end := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	g.step = h.Span / time.Duration(max(1, h.Messages))
	if g.step <= 0 {
		g.step = time.Microsecond
	}
	g.start = end.Add(-g.step * time.Duration(h.Messages))
	return g
}

// Message k of the table (from 0) is message k/Sessions of conversation
// k%Sessions; its row id is k+1 above the ids already used.
func (g *historyGen) messageAt(k int) time.Time { return g.start.Add(g.step * time.Duration(k)) }

func (g *historyGen) messageID(i, j int) int64 {
	return g.ids.messages + int64(j)*int64(g.h.Sessions) + int64(i) + 1
}

// Summary c of conversation i has id c*Sessions+i+1 above the ids used.
func (g *historyGen) memoryID(i, c int) int64 {
	return g.ids.memories + int64(c)*int64(g.h.Sessions) + int64(i) + 1
}

func (g *historyGen) load(ctx context.Context, conn *pgx.Conn) error {
	for _, x := range []struct {
		table string
		id    *int64
	}{{"sessions", &g.ids.sessions}, {"messages", &g.ids.messages}, {"memories", &g.ids.memories}, {"knowledge_entries", &g.ids.knowledge}} {
		if err := conn.QueryRow(ctx, "SELECT COALESCE(max(id), 0) FROM "+quote(x.table)).Scan(x.id); err != nil {
			return fmt.Errorf("history: ids of %s: %w", x.table, err)
		}
	}
	steps := []struct {
		table string
		cols  []string
		src   pgx.CopyFromSource
		n     int
	}{
		{"sessions", []string{"id", "key", "source", "guild_id", "channel_id", "title", "model", "space", "created_at", "updated_at"},
			g.sessions(), g.h.Sessions},
		{"memories", []string{"id", "session_id", "content", "tokens", "message_count", "period_start", "period_end",
			"folded_into", "embedding_model", "created_at"}, g.memories(), g.h.Sessions * g.chunks},
		{"messages", []string{"id", "session_id", "role", "author_id", "author_name", "content", "platform_message_id",
			"reply_to_id", "reply_to_platform_id", "model", "created_at", "archived_at", "memory_id", "tokens"},
			g.messages(), g.h.Messages},
		{"message_tags", []string{"message_id", "tag"}, g.messageTags(), 3 * g.h.Messages},
		{"memory_tags", []string{"memory_id", "tag"}, g.memoryTags(), 3 * g.h.Sessions * g.chunks},
		{"knowledge_entries", []string{"id", "space", "title", "body", "query", "tool", "session_key", "file_path", "created_at"},
			g.knowledge(), g.h.Messages / g.h.KnowledgeEvery},
		{"knowledge_sources", []string{"entry_id", "position", "url", "title"}, g.sources(), 2 * (g.h.Messages / g.h.KnowledgeEvery)},
	}
	if _, err := conn.Exec(ctx, `INSERT INTO spaces (key) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, g.spaces()); err != nil {
		return fmt.Errorf("history: spaces: %w", err)
	}
	pool := make([]string, 200)
	for i := range pool {
		pool[i] = historyWord(i)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO word_pools (space, words) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING`,
		g.spaces(), pool); err != nil {
		return fmt.Errorf("history: word pools: %w", err)
	}
	for _, s := range steps {
		n, err := conn.CopyFrom(ctx, pgx.Identifier{s.table}, s.cols, s.src)
		if err != nil {
			return fmt.Errorf("history: copy %s: %w", s.table, err)
		}
		if int(n) != s.n {
			return fmt.Errorf("history: copied %d rows into %s, want %d", n, s.table, s.n)
		}
	}
	for _, t := range []string{"sessions", "messages", "memories", "knowledge_entries"} {
		if _, err := conn.Exec(ctx, fmt.Sprintf(
			"SELECT setval(pg_get_serial_sequence('%s', 'id'), (SELECT COALESCE(max(id), 0) + 1 FROM %s), false)", t, quote(t))); err != nil {
			return fmt.Errorf("history: sequence of %s: %w", t, err)
		}
	}
	return nil
}

func (g *historyGen) spaces() []string {
	seen := map[string]bool{}
	var out []string
	for i := range g.h.Sessions {
		if _, _, sp := g.h.Session(i); !seen[sp] {
			seen[sp] = true
			out = append(out, sp)
		}
	}
	return out
}

// rowsOf is a pgx.CopyFromSource of n rows made by row.
type rowsOf struct {
	n, i int
	row  func(i int, vals []any)
	vals []any
}

func newRows(n, cols int, row func(i int, vals []any)) *rowsOf {
	return &rowsOf{n: n, i: -1, row: row, vals: make([]any, cols)}
}

func (r *rowsOf) Next() bool {
	r.i++
	return r.i < r.n
}

func (r *rowsOf) Values() ([]any, error) {
	r.row(r.i, r.vals)
	return r.vals, nil
}

func (r *rowsOf) Err() error { return nil }

func (g *historyGen) sessions() pgx.CopyFromSource {
	return newRows(g.h.Sessions, 10, func(i int, v []any) {
		key, guild, space := g.h.Session(i)
		ch := strconv.FormatInt(g.h.ChannelBase+int64(i), 10)
		last := g.messageAt((g.perSess-1)*g.h.Sessions + i)
		v[0], v[1], v[2], v[3], v[4] = g.ids.sessions+int64(i)+1, key, "discord", guild, ch
		v[5], v[6], v[7], v[8], v[9] = "", "qwen3:4b", space, g.messageAt(i), last
	})
}

func (g *historyGen) memories() pgx.CopyFromSource {
	S := g.h.Sessions
	firstLive := max(0, g.chunks-g.h.LiveSummaries)
	return newRows(S*g.chunks, 10, func(k int, v []any) {
		i, c := k%S, k/S
		first, last := c*g.h.SummaryEvery, min(g.archived, (c+1)*g.h.SummaryEvery)-1
		var folded *int64
		if c < firstLive {
			f := g.memoryID(i, firstLive)
			folded = &f
		}
		content := fmt.Sprintf("- %s さんが%sについて質問し、よろずが%sの手順を説明した。続けて%sの話になった。",
			historyNames[i%len(historyNames)], historyWord(k), historyWord(k+7), historyWord(k+13))
		end := g.messageAt(last*S + i)
		v[0], v[1], v[2], v[3], v[4] = g.memoryID(i, c), g.ids.sessions+int64(i)+1, content, len(content)/3, last-first+1
		v[5], v[6], v[7], v[8], v[9] = g.messageAt(first*S+i), end, folded, "", end.Add(time.Minute)
	})
}

func (g *historyGen) messages() pgx.CopyFromSource {
	S := g.h.Sessions
	var ids strings.Builder
	return newRows(g.h.Messages, 14, func(k int, v []any) {
		i, j := k%S, k/S
		at := g.messageAt(k)
		var archivedAt *time.Time
		var memoryID *int64
		if j < g.archived {
			a := g.messageAt(min(j+g.h.SummaryEvery, g.perSess-1)*S + i)
			m := g.memoryID(i, j/g.h.SummaryEvery)
			archivedAt, memoryID = &a, &m
		}
		var replyTo *int64
		role, author, name, model, replyToPlatform := "user", historyUser(i+j%3), historyNames[(i+j%3)%len(historyNames)], "", ""
		ids.Reset()
		ids.WriteString(g.h.PlatformID(i, j))
		var content string
		if j%2 == 1 {
			r := g.messageID(i, j-1)
			replyTo = &r
			role, author, name, model = "assistant", "", "", "qwen3:4b"
			if j%20 == 1 {
				ids.WriteString(" ")
				ids.WriteString(strconv.FormatInt(platformBase+int64(g.h.Messages)+int64(k), 10))
			}
			content = fmt.Sprintf("%sについてですね。%sの場合は、まず%sを確認してから%sを試してください。"+
				"うまくいかないときは%sの設定を見直すと解決することが多いです。ほかに気になる点があれば聞いてください。",
				historyWord(k), historyWord(k+3), historyWord(k+5), historyWord(k+11), historyWord(k+17))
		} else {
			if j >= 2 && j%10 == 4 {
				replyToPlatform = g.h.PlatformID(i, j-1)
			}
			content = fmt.Sprintf("%sって%sでも使えますか？%sのやり方を教えてください。", historyWord(k), historyWord(k+3), historyWord(k+5))
		}
		v[0], v[1], v[2], v[3], v[4], v[5] = g.messageID(i, j), g.ids.sessions+int64(i)+1, role, author, name, content
		v[6], v[7], v[8], v[9], v[10] = ids.String(), replyTo, replyToPlatform, model, at
		v[11], v[12], v[13] = archivedAt, memoryID, len(content)/3
	})
}

func (g *historyGen) messageTags() pgx.CopyFromSource {
	return newRows(3*g.h.Messages, 2, func(n int, v []any) {
		k := n / 3
		v[0], v[1] = g.ids.messages+int64(k)+1, historyWord(k+(n%3)*3)
	})
}

func (g *historyGen) memoryTags() pgx.CopyFromSource {
	S := g.h.Sessions
	return newRows(3*S*g.chunks, 2, func(n int, v []any) {
		k := n / 3
		v[0], v[1] = g.memoryID(k%S, k/S), historyWord(k+(n%3)*7)
	})
}

func (g *historyGen) knowledge() pgx.CopyFromSource {
	return newRows(g.h.Messages/g.h.KnowledgeEvery, 9, func(e int, v []any) {
		i := e % g.h.Sessions
		key, _, space := g.h.Session(i)
		id := g.ids.knowledge + int64(e) + 1
		title := historyWord(e) + "の使い方"
		v[0], v[1], v[2] = id, space, title
		v[3] = "## " + title + "\n\n" + strings.Repeat(historyWord(e+1)+"は"+historyWord(e+2)+"と組み合わせて使う。", 10)
		v[4], v[5], v[6] = historyWord(e)+" 使い方", "web_search", key
		v[7] = fmt.Sprintf("web_search/%s/%d.md", strings.Replace(space, ":", "-", 1), id)
		v[8] = g.messageAt(e * g.h.KnowledgeEvery)
	})
}

func (g *historyGen) sources() pgx.CopyFromSource {
	return newRows(2*(g.h.Messages/g.h.KnowledgeEvery), 4, func(n int, v []any) {
		e := n / 2
		v[0], v[1] = g.ids.knowledge+int64(e)+1, n%2
		v[2], v[3] = fmt.Sprintf("https://example.com/%d/%d", e, n%2), historyWord(e)+" - Example"
	})
}

var historyNames = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"}

// historyWords are the nouns the fixture's texts and tags are made of.
var historyWords = func() []string {
	stems := []string{"ラーメン", "天気", "猫", "将棋", "python", "サーバー", "ゲーム", "映画", "電車", "カメラ",
		"料理", "旅行", "音楽", "本", "野球", "サッカー", "コーヒー", "雨", "桜", "温泉"}
	out := make([]string, 0, len(stems)*50)
	for n := range 50 {
		for _, s := range stems {
			if n == 0 {
				out = append(out, s)
			} else {
				out = append(out, s+strconv.Itoa(n))
			}
		}
	}
	return out
}()

func historyWord(k int) string { return historyWords[(k*7919)%len(historyWords)] }
