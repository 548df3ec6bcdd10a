package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// The outside driver measures yorozu as a user and an operator meet it: the
// real binary, built into a temporary folder, runs as its own process
// between the fake Discord and the fake Ollama of this test process, on a
// fresh database of the local Postgres. Per route it reads
//
//   - frame → model: from the MESSAGE_CREATE frame leaving the fake gateway
//     to the chat request reaching the fake Ollama;
//   - done → visible: from the model's last chunk leaving the fake Ollama to
//     the whole answer being in the fake Discord;
//   - REST writes per turn: every non-GET request the fake Discord got
//     (typing, posts, edits, reactions, files);
//
// and for the process: resident memory once the turns' housekeeping is done
// (VmRSS), its peak from start (VmHWM), and the database transactions a
// second of the idle process (pg_stat_database, read from another database
// so that reading does not count).
//
// Turns follow each other as soon as the answer is visible: the previous
// turn's housekeeping (storing, tags, word pool, summaries) runs while the
// next one arrives, as in a busy channel. The model is instant and answers
// outsideReplyRunes characters in outsideChunks chunks.
//
// TestOutside runs a short form in every test run; BenchmarkOutside the
// full one:
//
//	go test -run '^$' -bench Outside -benchtime 1x -timeout 30m ./cmd/yorozu/
//
// The -outside.* flags choose another plan for either; the memory form
// alone (1,000 turns, no idle count, three runs) is
//
//	go test -count=1 -run 'TestOutside$' -v -timeout 30m ./cmd/yorozu/ \
//	  -args -outside.turns=1 -outside.memory=1000 -outside.idle=0 -outside.runs=3

// outsideRoutes are the routes measured, each with a question the router
// sends there (chat/testdata/routes.tsv holds it to that).
var outsideRoutes = []struct{ name, text string }{
	{"chat", "ベンチマークの質問です"},
	{"weather", "今日の天気は？"},
	{"reminder", "明日の9時に会議をリマインドして"},
	{"smalltalk", "雑談しよう"},
}

const (
	outsideChunks     = 10
	outsideReplyRunes = 300
)

// outsideReply is the fake model's answer, in outsideChunks chunks of equal
// length.
func outsideReply() []string {
	base := []rune(strings.Repeat("これはベンチマークのための回答で、内容に意味はありません。", 20))
	per := outsideReplyRunes / outsideChunks
	chunks := make([]string, outsideChunks)
	for i := range chunks {
		chunks[i] = string(base[i*per : (i+1)*per])
	}
	return chunks
}

// outsidePlan is how much one driver run does.
type outsidePlan struct {
	turns       int               // turns per route
	memoryTurns int               // chat turns in all before the memory reading (0: none more)
	idle        time.Duration     // how long the idle transactions are counted (0: not counted)
	env         map[string]string // more environment for the binary (GODEBUG, GOMEMLIMIT)
}

// Flags that change a driver's plan; unset, each test keeps its own.
var (
	outsideTurnsFlag  = flag.Int("outside.turns", 0, "outside driver: turns per route")
	outsideMemoryFlag = flag.Int("outside.memory", 0, "outside driver: chat turns in all before memory is read")
	outsideIdleFlag   = flag.Duration("outside.idle", 0, "outside driver: how long idle transactions are counted (0: not counted)")
	outsideRunsFlag   = flag.Int("outside.runs", 0, "outside driver: runs, each a fresh process and database")
)

// withFlags returns p, and runs, changed by the -outside.* flags given.
func (p outsidePlan) withFlags(runs int) (outsidePlan, int) {
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "outside.turns":
			p.turns = *outsideTurnsFlag
		case "outside.memory":
			p.memoryTurns = *outsideMemoryFlag
		case "outside.idle":
			p.idle = *outsideIdleFlag
		case "outside.runs":
			runs = max(1, *outsideRunsFlag)
		}
	})
	return p, runs
}

// outsideRun is what one run measured.
type outsideRun struct {
	toModel   map[string][]time.Duration
	toVisible map[string][]time.Duration
	writes    map[string]int // REST writes by route
	turns     map[string]int
	turnsDone int     // turns in all when memory was read
	rssMiB    float64 // VmRSS once the turns' housekeeping was done
	hwmMiB    float64 // VmHWM, the peak from start
	idleTx    float64 // transactions a second, idle (NaN: not counted)
	calls     int     // model calls, housekeeping included
}

// outsideTurn is one turn in flight: the driver sets it before the
// mention; the fake model fills it in.
type outsideTurn struct {
	mu       sync.Mutex
	arrived  time.Time // the turn's chat request reached the fake model
	lastSent time.Time // its last chunk was let go
}

func runOutside(t testing.TB, bin string, plan outsidePlan) outsideRun {
	t.Helper()
	env := map[string]string{"USER_RATE_LIMIT": "0", "JMA_BASE_URL": fakeJMA(t)}
	maps.Copy(env, plan.env)
	h := newHarness(t, env)
	child := h.startBinary(t, bin)
	h.openPool(t)

	chunks := outsideReply()
	whole := strings.Join(chunks, "")
	var cur *outsideTurn
	var curMu sync.Mutex
	h.ollama.HandleTimed(func(req api.ChatRequest, at time.Time) ollamatest.Reply {
		if !isTurn(req) {
			return housekeeping(req)
		}
		curMu.Lock()
		turn := cur
		curMu.Unlock()
		last := make(chan struct{})
		reply := ollamatest.Text(chunks...)
		reply.Chunks[len(reply.Chunks)-1].Wait = last
		// The last chunk goes as soon as the fake has written the others:
		// the clock starts when it is let go.
		go func() {
			turn.mu.Lock()
			if turn.arrived.IsZero() {
				turn.arrived = at
			}
			turn.lastSent = time.Now()
			turn.mu.Unlock()
			close(last)
		}()
		return reply
	})

	r := outsideRun{
		toModel: map[string][]time.Duration{}, toVisible: map[string][]time.Duration{},
		writes: map[string]int{}, turns: map[string]int{},
	}
	n := 0
	ask := func(route, text string) {
		turn := &outsideTurn{}
		curMu.Lock()
		cur = turn
		curMu.Unlock()
		before := len(h.discord.Calls())
		t0 := time.Now()
		q := h.mention(aliceID, text)
		visible := h.waitWhole(t, q.ID, whole, before)
		n++
		turn.mu.Lock()
		arrived, lastSent := turn.arrived, turn.lastSent
		turn.mu.Unlock()
		if arrived.IsZero() {
			t.Fatalf("%s turn %d: answered without a model call", route, n)
		}
		r.toModel[route] = append(r.toModel[route], arrived.Sub(t0))
		r.toVisible[route] = append(r.toVisible[route], visible.Sub(lastSent))
		// The writes since this turn began; those that come after the
		// answer (files, buttons) are counted with the next turn, and the
		// last turn's once everything is quiet.
		r.writes[route] += restWrites(h.discord.Calls()[before:])
		r.turns[route]++
	}
	for _, rt := range outsideRoutes {
		for range plan.turns {
			ask(rt.name, rt.text)
		}
	}
	for i := 0; n < plan.memoryTurns; i++ {
		ask("", footprintText(i))
	}
	before := len(h.discord.Calls())
	h.settleTest(t, 2*n)
	r.writes[outsideRoutes[len(outsideRoutes)-1].name] += restWrites(h.discord.Calls()[before:])
	delete(r.writes, "")
	delete(r.turns, "")
	delete(r.toModel, "")
	delete(r.toVisible, "")

	st := procStatus(t, child.Process.Pid)
	r.turnsDone, r.rssMiB, r.hwmMiB = n, st["VmRSS"], st["VmHWM"]
	r.calls = h.ollama.ChatCalls()
	r.idleTx = math.NaN()
	if plan.idle > 0 {
		r.idleTx = h.idleTransactions(t, plan.idle)
	}
	return r
}

// waitWhole waits until the bot's answer to message q shows whole in the
// fake Discord, and returns when the write that made it so arrived. Only
// the calls from the from-th on are read: every answer has the same text,
// and reading them all made a turn cost as much as all before it.
func (h *harness) waitWhole(t testing.TB, q, whole string, from int) time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var at time.Time
	err := h.discord.WaitFor(ctx, func() bool {
		for _, c := range h.discord.Calls()[from:] {
			if c.Method != "GET" && c.MessageID != "" && strings.Contains(c.Content, whole) && h.answers(c.MessageID, q) {
				at = c.Time
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the answer to %s never showed whole; bot messages: %+v\nstderr:\n%s", q, h.discord.BotMessages(channelID), h.stderr.String())
	}
	return at
}

// answers reports whether the bot's message id replies to the user's
// message q.
func (h *harness) answers(id, q string) bool {
	for _, m := range h.discord.BotMessages(channelID) {
		if m.ID == id {
			return m.Reference != nil && m.Reference.MessageID == q
		}
	}
	return false
}

// restWrites counts the requests among calls that change something on
// Discord.
func restWrites(calls []discordtest.Call) int {
	n := 0
	for _, c := range calls {
		if c.Method != "GET" {
			n++
		}
	}
	return n
}

// idleTransactions counts the transactions yorozu's database commits and
// rolls back in d with no Discord traffic, per second. It reads
// pg_stat_database from the maintenance database, so that its own reads do
// not count.
func (h *harness) idleTransactions(t testing.TB, d time.Duration) float64 {
	t.Helper()
	stats := h.openStats(t, d)
	defer stats.close()
	// Counts the turns' backends report late would land in the window (an
	// idle backend reports within a second, PGSTAT_MIN_INTERVAL), and so
	// would the turns' last housekeeping: the window starts ten seconds
	// into the quiet.
	quiet := time.NewTimer(10 * time.Second)
	<-quiet.C
	a := stats.transactions()
	window := time.NewTimer(d)
	<-window.C
	return float64(stats.transactions()-a) / d.Seconds()
}

// dbStats reads the statistics of yorozu's database from a connection to
// the maintenance database.
type dbStats struct {
	t    testing.TB
	ctx  context.Context
	stop context.CancelFunc
	conn *pgx.Conn
	name string // yorozu's database
}

// openStats connects for a reading that lasts d.
func (h *harness) openStats(t testing.TB, d time.Duration) *dbStats {
	t.Helper()
	u, err := url.Parse(h.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return &dbStats{t: t, ctx: ctx, stop: cancel, conn: conn, name: name}
}

func (s *dbStats) close() {
	s.conn.Close(context.Background())
	s.stop()
}

// transactions is the database's commits and rollbacks so far.
func (s *dbStats) transactions() int64 {
	var n int64
	// A new snapshot each time: within one transaction the statistics
	// would not move.
	if _, err := s.conn.Exec(s.ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
		s.t.Fatal(err)
	}
	if err := s.conn.QueryRow(s.ctx, `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1`, s.name).Scan(&n); err != nil {
		s.t.Fatal(err)
	}
	return n
}

// report logs (and, for a benchmark, reports) the medians of runs.
func (o outsideRuns) report(t testing.TB) {
	t.Helper()
	b, _ := t.(*testing.B)
	metric := func(v float64, unit string) {
		if b != nil {
			b.ReportMetric(v, unit)
		}
	}
	var lines []string
	for _, rt := range outsideRoutes {
		var toModel, toVisible []time.Duration
		var writes, turns int
		for _, r := range o {
			toModel = append(toModel, r.toModel[rt.name]...)
			toVisible = append(toVisible, r.toVisible[rt.name]...)
			writes += r.writes[rt.name]
			turns += r.turns[rt.name]
		}
		wpt := float64(writes) / float64(turns)
		metric(ms(percentile(toModel, 50)), rt.name+"-ms-to-model")
		metric(ms(percentile(toModel, 90)), rt.name+"-ms-to-model-p90")
		metric(ms(percentile(toVisible, 50)), rt.name+"-ms-done-to-visible")
		metric(wpt, rt.name+"-writes/turn")
		lines = append(lines, fmt.Sprintf("%-9s frame→model %6.2f ms (p90 %6.2f)  done→visible %6.2f ms (p90 %6.2f)  %.2f writes/turn  (%d turns)",
			rt.name, ms(percentile(toModel, 50)), ms(percentile(toModel, 90)),
			ms(percentile(toVisible, 50)), ms(percentile(toVisible, 90)), wpt, turns))
	}
	var rss, hwm, idle, calls []float64
	turns := 0
	for _, r := range o {
		rss, hwm, idle = append(rss, r.rssMiB), append(hwm, r.hwmMiB), append(idle, r.idleTx)
		calls = append(calls, float64(r.calls)/float64(r.turnsDone))
		turns = r.turnsDone
	}
	metric(medianOf(rss), "MiB-rss")
	metric(medianOf(hwm), "MiB-peak")
	idleText := "not counted"
	if m := medianOf(idle); !math.IsNaN(m) {
		metric(m, "idle-tx/s")
		idleText = fmt.Sprintf("%.2f transactions/s", m)
	}
	metric(medianOf(calls), "calls/turn")
	lines = append(lines, fmt.Sprintf("after %d turns: VmRSS %.1f MiB, VmHWM %.1f MiB; idle %s; %.3f model calls/turn (medians of %d runs)",
		turns, medianOf(rss), medianOf(hwm), idleText, medianOf(calls), len(o)))
	if len(o) > 1 {
		lines = append(lines, fmt.Sprintf("each run: VmRSS %.1f MiB, VmHWM %.1f MiB", rss, hwm))
	}
	t.Log("outside driver:\n" + strings.Join(lines, "\n"))
}

type outsideRuns []outsideRun

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)*p/100, len(s)-1)]
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestOutside is the driver's short form: a few turns of each route and a
// short idle count, so the normal test run keeps it working. It asserts
// what a user would notice — every answer shows whole, in one model call —
// and logs the numbers, which on a shared machine say little.
func TestOutside(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	bin := buildYorozu(t)
	plan, n := outsidePlan{turns: 3, idle: 5 * time.Second}.withFlags(1)
	var runs outsideRuns
	for range n {
		r := runOutside(t, bin, plan)
		if r.calls < r.turnsDone {
			t.Errorf("%d model calls for %d turns", r.calls, r.turnsDone)
		}
		runs = append(runs, r)
	}
	runs.report(t)
}

// BenchmarkOutside is the driver in full: 3 runs, each a fresh process
// and database, of 20 turns a route, then chat turns up to 1,000 before
// memory is read, and a minute of idle. Each iteration is all three runs;
// run it with -benchtime 1x.
func BenchmarkOutside(b *testing.B) {
	bin := buildYorozu(b)
	plan, n := outsidePlan{turns: 20, memoryTurns: 1000, idle: time.Minute}.withFlags(3)
	for range b.N {
		var runs outsideRuns
		for range n {
			runs = append(runs, runOutside(b, bin, plan))
		}
		runs.report(b)
	}
}
