package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/scheduler"
)

// dbProxy stands between yorozu and PostgreSQL so a test can take the
// database away: Down cuts every connection and refuses new ones (the port
// closed, as during a restart), Up listens again on the same address.
type dbProxy struct {
	t      testing.TB
	target string // host:port of PostgreSQL
	addr   string // host:port of the proxy

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

// newDBProxy listens for the database at dbURL.
func newDBProxy(t testing.TB, dbURL string) *dbProxy {
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	p := &dbProxy{t: t, target: u.Host, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.Down)
	return p
}

// url is dbURL with its host replaced by the proxy's.
func (p *dbProxy) url(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		p.t.Fatal(err)
	}
	u.Host = p.addr
	return u.String()
}

func (p *dbProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

func (p *dbProxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // went down meanwhile
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

// Down closes the port and every connection through it.
func (p *dbProxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Up listens again on the same address.
func (p *dbProxy) Up() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}

func status(t testing.TB, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestDatabaseAwayEightSeconds: every connection to the database is cut and
// refused for 8 s, as in a PostgreSQL restart. The process stays up and
// says so once: /healthz answers throughout, /readyz is 503 naming the
// database while it is away and 200 after, the gateway is held again soon
// after the database returns; the mentions sent meanwhile — one the gateway
// got, two it did not — are answered once each, in order, and a reminder
// due meanwhile is delivered once; the log has at most one ERROR or WARN
// line per part for the outage.
func TestDatabaseAwayEightSeconds(t *testing.T) {
	h := newHarness(t, map[string]string{"USER_RATE_LIMIT": "0"})
	proxy := newDBProxy(t, h.dbURL)
	h.env["DATABASE_URL"] = proxy.url(h.dbURL)
	h.openPool(t)
	h.startRun(t, h.env)
	h.script(ollamatest.Text("はい、どうぞ。"), ollamatest.Text("直後への返事"), ollamatest.Text("一つ目への返事"),
		ollamatest.Text("二つ目への返事"), ollamatest.Text("戻りました。"))
	// A bot that has been running: its start-up knowledge base sync is done,
	// and the channel has a conversation.
	h.waitCount(t, `SELECT count(*) FROM app_settings WHERE key = 'kb_last_sync'`, 1)
	asked := map[string]string{} // user message id -> the answer wanted
	asked[h.mention(aliceID, "始めます").ID] = "はい、どうぞ。"
	h.waitReply(t, 1, equals("はい、どうぞ。"))
	h.waitCount(t, `SELECT count(*) FROM messages`, 2)
	// The outage begins with the process at rest: the answer's ids, kept
	// after the turn and the last of its writes, are in.
	h.waitCount(t, `SELECT count(*) FROM messages WHERE role = 'assistant' AND platform_message_id IS NOT NULL`, 1)

	// A reminder falls due while the database is away.
	maker, err := scheduler.New(h.pool, scheduler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := maker.Reminders().Create(context.Background(), db.ReminderParams{
		ChannelID: channelID, UserID: aliceID, Content: "停電中の予定", DueAt: time.Now().Add(4 * time.Second),
	}); err != nil {
		t.Fatal(err)
	}

	before := len(h.stderr.String())
	proxy.Down()
	down := time.Now()
	// One mention reaches the gateway before the loss of the lock is seen;
	// two more are sent after the gateway was left, which no gateway gets.
	asked[h.mention(aliceID, "直後").ID] = "直後への返事"
	sawNotReady, sentMissed := false, false
	for time.Since(down) < 8*time.Second {
		if !sentMissed && !h.discord.Connected() {
			asked[h.mention(aliceID, "一つ目").ID] = "一つ目への返事"
			asked[h.mention(aliceID, "二つ目").ID] = "二つ目への返事"
			sentMissed = true
		}
		if code, _ := status(t, h.httpURL+"/healthz"); code != http.StatusOK {
			t.Fatalf("/healthz %d while the database is away", code)
		}
		if code, body := status(t, h.httpURL+"/readyz"); code == http.StatusServiceUnavailable && strings.Contains(body, "database") {
			sawNotReady = true
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !sawNotReady {
		t.Error("/readyz never said the database is away")
	}
	proxy.Up()
	back := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return h.discord.Sessions() == 2 }); err != nil {
		t.Fatalf("the gateway was not held again: %v\n%s", err, h.stderr.String())
	}
	if took := time.Since(back); took > 5*time.Second {
		t.Errorf("gateway held again %s after the database returned, want within 5 s", took.Round(100*time.Millisecond))
	}
	for {
		if code, _ := status(t, h.httpURL+"/readyz"); code == http.StatusOK {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("/readyz did not turn 200 after the database returned")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The reminder is delivered once, after.
	deadline := time.Now().Add(15 * time.Second)
	for len(h.botPosts("<@"+aliceID+"> ⏰")) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if !sentMissed {
		t.Fatal("the gateway was never left during the outage")
	}
	// The mentions of the outage are answered once each, in order (the
	// model's answers are scripted in that order), then a new one is.
	asked[h.mention(aliceID, "聞こえる？").ID] = "戻りました。"
	answers := func() map[string][]string {
		got := map[string][]string{}
		for _, m := range h.discord.BotMessages(channelID) {
			if m.Reference != nil && !strings.Contains(m.Content, "⏳") {
				got[m.Reference.MessageID] = append(got[m.Reference.MessageID], m.Content)
			}
		}
		return got
	}
	if err := h.discord.WaitFor(ctx, func() bool { return len(answers()) == len(asked) }); err != nil {
		t.Fatalf("mentions of the outage not all answered: %+v", answers())
	}
	time.Sleep(300 * time.Millisecond)
	for id, want := range asked {
		if got := answers()[id]; len(got) != 1 || got[0] != want {
			t.Errorf("answers to message %s: %q, want [%q]", id, got, want)
		}
	}
	if posts := h.botPosts("<@" + aliceID + "> ⏰"); len(posts) != 1 || !strings.Contains(posts[0].Content, "停電中の予定") {
		t.Errorf("reminder due during the outage: %+v, want one delivery", posts)
	}

	outage := h.stderr.String()[before:]
	for _, want := range []string{"the database does not answer", "the database answers again", "lost the Discord gateway lock", "taking over the Discord gateway"} {
		if !strings.Contains(outage, want) {
			t.Errorf("the log does not say %q:\n%s", want, outage)
		}
	}
	// At most one ERROR or WARN per part.
	perPart := map[string][]string{}
	component := regexp.MustCompile(`component=(\S+)`)
	for _, line := range strings.Split(outage, "\n") {
		if !strings.Contains(line, "level=ERROR") && !strings.Contains(line, "level=WARN") {
			continue
		}
		part := "app"
		if m := component.FindStringSubmatch(line); m != nil {
			part = m[1]
		}
		perPart[part] = append(perPart[part], line)
	}
	for part, lines := range perPart {
		if len(lines) > 1 {
			t.Errorf("%d ERROR/WARN lines from %s during the outage, want at most 1:\n%s", len(lines), part, strings.Join(lines, "\n"))
		}
	}
}
