package scheduler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/rivertype"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// dbProxy forwards TCP to PostgreSQL until Cut, which drops every
// connection and refuses new ones: to the database, the process behind the
// proxy has died (its transactions roll back, its locks go, its River jobs
// stay "running").
type dbProxy struct {
	ln      net.Listener
	network string
	target  string

	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

func newDBProxy(t testing.TB, dbURL string) (*dbProxy, string) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	p := &dbProxy{network: "tcp", target: net.JoinHostPort(cfg.ConnConfig.Host, fmt.Sprint(cfg.ConnConfig.Port))}
	if strings.HasPrefix(cfg.ConnConfig.Host, "/") {
		p.network, p.target = "unix", fmt.Sprintf("%s/.s.PGSQL.%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port)
	}
	if p.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go p.serve()
	t.Cleanup(func() { p.ln.Close(); p.Cut() })

	u, err := url.Parse(dbURL)
	if err != nil || u.Scheme == "" {
		t.Skipf("dbtest URL %q is not a URL; the proxy needs one", dbURL)
	}
	u.Host = p.ln.Addr().String()
	q := u.Query()
	q.Del("host")
	q.Del("port")
	q.Set("pool_max_conns", "20")
	u.RawQuery = q.Encode()
	return p, u.String()
}

func (p *dbProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		if !cut {
			p.conns = append(p.conns, c)
		}
		p.mu.Unlock()
		if cut {
			c.Close()
			continue
		}
		go p.pipe(c)
	}
}

func (p *dbProxy) pipe(c net.Conn) {
	up, err := net.Dial(p.network, p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns = append(p.conns, up)
	p.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

// Cut kills every connection and refuses new ones.
func (p *dbProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Restore lets connections through again.
func (p *dbProxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// The process dies after Discord made the reminder's message but before its
// answer arrived and the delivery was committed; by the time another
// process rescues the job, Discord has forgotten the nonce. The reminder
// still shows once: the retry finds the message in the channel and records
// it instead of posting again.
func TestCrashAfterPostBeforeCommitDeliversOnce(t *testing.T) {
	ctx := context.Background()
	dbURL := dbtest.URL(t)
	pool, err := db.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	proxy, proxied := newDBProxy(t, dbURL)
	dyingPool, err := db.Open(ctx, proxied)
	if err != nil {
		t.Fatal(err)
	}

	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	fd.LoseCreateResponses("c1", 1, discordtest.LossTimeout)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	first, err := New(dyingPool, Options{Discord: fd.session, ClientID: "first", SendTimeout: time.Second, Location: jst, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	start(t, first)
	t.Cleanup(func() {
		// Let the dead process go quietly once the test is over.
		proxy.Restore()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		first.Stop(sctx)
		dyingPool.Close()
	})

	rem := create(t, first.Reminders(), "u1", "c1", "薬を飲む", time.Now().Add(500*time.Millisecond))
	fd.waitFor(t, 15*time.Second, "the reminder made, its answer hanging", func() bool { return len(fd.Messages("c1")) == 1 })
	proxy.Cut()       // the process dies before it can commit
	fd.ForgetNonces() // and minutes pass: Discord no longer knows the nonce

	pollDB(t, 10*time.Second, "the dead attempt rolled back", func() bool {
		r, err := db.ReminderByID(ctx, pool, rem.ID)
		return err == nil && r.Pending() && r.Attempts == 0
	})
	var state string
	if err := pool.QueryRow(ctx, "SELECT state FROM river_job WHERE id = $1", *rem.JobID).Scan(&state); err != nil || state != string(rivertype.JobStateRunning) {
		t.Fatalf("job state %q, %v; want running, as a crash leaves it", state, err)
	}

	second := newScheduler(t, pool, fd.session, Options{ClientID: "second", SendTimeout: time.Second, RescueAfter: time.Second, Logger: quiet})
	start(t, second)
	pollDB(t, 90*time.Second, "the reminder delivered after the restart", func() bool {
		r, err := db.ReminderByID(ctx, pool, rem.ID)
		return err == nil && r.NotifiedAt != nil
	})

	msgs := fd.Messages("c1")
	got := reminder(t, second, rem.ID)
	if len(msgs) != 1 || got.MessageID != msgs[0].ID {
		t.Fatalf("%d messages %+v, row message %q; want the one message, recorded", len(msgs), msgs, got.MessageID)
	}
	if n := len(fd.posts("c1")); n != 1 {
		t.Errorf("%d POSTs, want 1: the retry should find the message, not post it again", n)
	}
	pollDB(t, 10*time.Second, "job completed", func() bool { return jobState(t, second, rem) == rivertype.JobStateCompleted })
}

// A post whose answer was a 500 although Discord made the message is
// retried after Discord forgot the nonce: the retry finds the message and
// records it, so the reminder shows once.
func TestRetryAfterForgottenNonceFindsThePost(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	fd.SendMessage(&discordgo.Message{ChannelID: "c1", Author: &discordgo.User{ID: "u2"}, Content: "<@u1> ⏰ リマインド: 水やり (a user's copy)"})
	fd.LoseCreateResponses("c1", 1, discordtest.LossServerError)
	s := newScheduler(t, pool, fd.session, Options{})
	start(t, s)
	rem := create(t, s.Reminders(), "u1", "c1", "水やり", time.Now().Add(500*time.Millisecond))
	fd.waitFor(t, 15*time.Second, "the first post", func() bool { return len(fd.posts("c1")) == 1 })
	fd.ForgetNonces()
	pollDB(t, 30*time.Second, "delivered", func() bool { return reminder(t, s, rem.ID).NotifiedAt != nil })
	got := reminder(t, s, rem.ID)
	mine := fd.BotMessages("c1")
	if len(mine) != 1 || got.MessageID != mine[0].ID || got.Attempts != 2 {
		t.Fatalf("bot messages %+v, row %+v; want one message, recorded on attempt 2", mine, got)
	}
	if n := len(fd.posts("c1")); n != 1 {
		t.Errorf("%d POSTs, want 1", n)
	}
}
