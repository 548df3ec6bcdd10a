package scheduler

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

var jst = time.FixedZone("JST", 9*3600)

// newPool returns a pool on a fresh database with our and River's
// migrations, big enough for many workers.
func newPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	u := dbtest.URL(t)
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	pool, err := db.Open(ctx, u+sep+"pool_max_conns=40")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	return pool
}

// rebase sends discordgo's https://discord.com/ requests to the fake.
type rebase struct {
	base *url.URL
	next http.RoundTripper
	// failPosts answers this many message POSTs with 500 before passing
	// requests on.
	failPosts atomic.Int32
}

func (t *rebase) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages") && t.failPosts.Add(-1) >= 0 {
		return &http.Response{
			StatusCode: http.StatusInternalServerError, Status: "500 Internal Server Error",
			Header:  http.Header{"Content-Type": {"application/json"}},
			Body:    io.NopCloser(strings.NewReader(`{"message":"Internal Server Error","code":0}`)),
			Request: r,
		}, nil
	}
	u := *r.URL
	u.Scheme, u.Host = t.base.Scheme, t.base.Host
	r2 := r.Clone(r.Context())
	r2.URL, r2.Host = &u, ""
	return t.next.RoundTrip(r2)
}

// fakeDiscord is a fake Discord and a real discordgo session talking to it;
// bot posts through the same fake the way the app does.
type fakeDiscord struct {
	*discordtest.Server
	session *discordgo.Session
	rt      *rebase
	bot     *bot.Bot
}

func newFakeDiscord(t testing.TB) *fakeDiscord {
	t.Helper()
	srv := discordtest.New(t)
	base, _ := url.Parse(srv.URL())
	s, err := discordgo.New("Bot test-token")
	if err != nil {
		t.Fatal(err)
	}
	// As the bot's own client: connections kept for all the workers.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	rt := &rebase{base: base, next: tr}
	s.Client = &http.Client{Transport: rt, Timeout: 10 * time.Second}
	b, err := bot.New(bot.Options{Token: "test-token", APIBase: srv.URL(), Responder: noResponder{}})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeDiscord{Server: srv, session: s, rt: rt, bot: b}
}

// noResponder is the responder of a bot that only posts.
type noResponder struct{}

func (noResponder) Respond(context.Context, chat.Request, func(llm.Event) error) error { return nil }

// posts returns the create-message calls made to channel, answered or not.
func (f *fakeDiscord) posts(channel string) []discordtest.Call {
	var out []discordtest.Call
	for _, c := range f.Calls() {
		if c.Method == http.MethodPost && c.Path == "/channels/"+channel+"/messages" {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeDiscord) waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := f.WaitFor(ctx, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

type sentBody struct {
	Content         string                            `json:"content"`
	AllowedMentions *discordgo.MessageAllowedMentions `json:"allowed_mentions"`
	Nonce           string                            `json:"nonce"`
	EnforceNonce    bool                              `json:"enforce_nonce"`
}

func decodeBody(t testing.TB, c discordtest.Call) sentBody {
	t.Helper()
	var b sentBody
	if err := json.Unmarshal(c.Body, &b); err != nil {
		t.Fatalf("decode %s: %v", c.Body, err)
	}
	return b
}

// newScheduler builds a scheduler on pool with fast retries for tests and
// stops it at cleanup.
func newScheduler(t testing.TB, pool *pgxpool.Pool, d Discord, opts Options) *Scheduler {
	t.Helper()
	opts.Discord = d
	if opts.Location == nil {
		opts.Location = jst
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s, err := New(pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return s
}

func start(t testing.TB, s *Scheduler) {
	t.Helper()
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// pollDB polls cond until it holds or timeout passes, for states only the
// database shows.
func pollDB(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}
