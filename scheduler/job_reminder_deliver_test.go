package scheduler

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/riverqueue/river/rivertype"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// heldModel is a fake Ollama whose every answer waits for release, behind
// a pipeline with one chat slot (LLM_CONCURRENCY=1), and the scheduled
// posts' Post writing through it as the app's does.
type heldModel struct {
	srv      *ollamatest.Server
	pipeline *llm.Pipeline
	gate     chan struct{}
}

func newHeldModel(t testing.TB) *heldModel {
	t.Helper()
	m := &heldModel{srv: ollamatest.New(t), gate: make(chan struct{})}
	m.srv.AddModel("gemma", "completion")
	m.srv.Handle(func(req api.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "今日のまとめ: " + req.Messages[len(req.Messages)-1].Content}}, Gate: m.gate}
	})
	m.pipeline = llm.New(llm.Options{Client: m.srv.Client(), Concurrency: 1})
	return m
}

func (m *heldModel) post(ctx context.Context, r db.Reminder) (string, error) {
	res, err := m.pipeline.Run(ctx, llm.Request{Model: "gemma", Messages: []api.Message{{Role: "user", Content: r.Content}}}, nil)
	return res.Content, err
}

// heldTransactions counts the connections to the test's database idle in a
// transaction that began before since: held across a wait, not between two
// statements of a short one.
func heldTransactions(t testing.TB, s *Scheduler, since time.Time) int {
	t.Helper()
	var n int
	err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND xact_start < $1`, since).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Twenty scheduled posts due together wait in line for a slow model. While
// they wait, none holds a database connection in a transaction, and the
// rest of the bot goes on at once: a pause of another post waiting with
// them (which waited for the row lock a waiting post held), a new
// reminder, a plain query. Each post is then delivered exactly once.
func TestPostsWaitingForTheModelHoldNoTransaction(t *testing.T) {
	const n = 20
	ctx := context.Background()
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	model := newHeldModel(t)
	clock := newClock(at(2026, 12, 4, 16, 0))
	s := newScheduler(t, pool, fd.session, Options{Now: clock.Now, MaxPostsPerSpace: n + 1, ReminderWorkers: n + 1, Post: model.post})
	r := s.Reminders()
	posts := make([]db.Reminder, n+1)
	for i := range posts {
		p := db.ReminderParams{GuildID: "g1", ChannelID: "c1", UserID: "u1", Content: fmt.Sprintf("話題%d", i), Kind: db.KindPost}
		var err error
		if posts[i], err = r.Repeat(ctx, p, parseRule(t, "毎日17時", clock.Now()), tokyo); err != nil {
			t.Fatal(err)
		}
	}
	clock.Set(at(2026, 12, 4, 17, 0))
	// River's clock is the database's: make the jobs due on it too.
	if _, err := pool.Exec(ctx, "UPDATE river_job SET scheduled_at = now(), state = 'available' WHERE kind = 'reminder' AND state = 'scheduled'"); err != nil {
		t.Fatal(err)
	}
	start(t, s)
	pollDB(t, 30*time.Second, "every post waiting for the model", func() bool {
		return model.srv.ChatCalls() == 1 && model.pipeline.QueueLen() == n
	})
	var waiting time.Time
	if err := pool.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	pollDB(t, 10*time.Second, "no transaction held while the posts wait", func() bool { return heldTransactions(t, s, waiting) == 0 })

	quick, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// One not at the model: pausing that one would let the next in.
	req := model.srv.Requests()[0]
	atModel := req.Messages[len(req.Messages)-1].Content
	pause := n
	if posts[pause].Content == atModel {
		pause = 0
	}
	paused, err := r.Pause(quick, db.Owner{UserID: "u1"}, posts[pause].ID)
	if err != nil || paused.PausedAt == nil {
		t.Fatalf("pause of a post waiting for the model: %+v, %v", paused, err)
	}
	if _, err := r.Create(quick, db.ReminderParams{ChannelID: "c1", UserID: "u2", Content: "会議", DueAt: clock.Now().Add(time.Hour)}); err != nil {
		t.Fatalf("reminder made while the posts wait: %v", err)
	}
	var one int
	if err := pool.QueryRow(quick, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	if calls := model.srv.ChatCalls(); calls != 1 {
		t.Fatalf("%d model calls; the posts should still be waiting", calls)
	}
	// The paused post stops waiting: its job is cancelled.
	pollDB(t, 10*time.Second, "the paused post out of the line", func() bool { return model.pipeline.QueueLen() == n-1 })

	close(model.gate)
	fd.waitFor(t, 60*time.Second, "the posts", func() bool { return len(fd.posts("c1")) >= n })
	settle(t, s)
	sent := map[string]int{}
	for _, c := range fd.posts("c1") {
		sent[decodeBody(t, c).Nonce]++
	}
	for i, p := range posts {
		nonce := reminderNonce(p)
		got := reminder(t, s, p.ID)
		ds := deliveries(t, s, p.ID)
		if i == pause {
			if sent[nonce] != 0 || got.PausedAt == nil || !got.DueAt.Equal(p.DueAt) || len(ds) != 0 {
				t.Errorf("paused post: %d sent, %+v, deliveries %+v; want none sent, paused on its occurrence", sent[nonce], got, ds)
			}
			continue
		}
		if sent[nonce] != 1 || len(ds) != 1 || ds[0].MessageID == "" || !got.DueAt.Equal(at(2026, 12, 5, 17, 0)) || got.ClaimToken != "" {
			t.Errorf("post %d: sent %d times, deliveries %+v, row %+v; want once, recorded, moved on to tomorrow", i, sent[nonce], ds, got)
		}
	}
	if len(fd.posts("c1")) != n {
		t.Errorf("%d posts, want %d", len(fd.posts("c1")), n)
	}
}

// A pause, skip or cancel that comes while a scheduled post is being
// written is answered at once, and the post's outcome respects it: a
// cancelled post is not planned again, a paused one moves on without a
// job, a skipped one keeps the single next job the skip planned.
func TestChangeWhileAPostIsWritten(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(ctx context.Context, r *Reminders, id int64) error
		check  func(t *testing.T, got db.Reminder, ds []db.Delivery, jobs int, next time.Time)
	}{
		{
			name: "cancel",
			change: func(ctx context.Context, r *Reminders, id int64) error {
				_, err := r.Cancel(ctx, "u1", id)
				return err
			},
			check: func(t *testing.T, got db.Reminder, ds []db.Delivery, jobs int, next time.Time) {
				if got.CancelledAt == nil || got.NotifiedAt != nil || got.DueAt.Equal(next) || jobs != 0 || len(ds) != 1 || ds[0].MessageID == "" {
					t.Errorf("%+v, deliveries %+v, %d jobs for the next; want cancelled, the post recorded, nothing planned", got, ds, jobs)
				}
			},
		},
		{
			name: "pause",
			change: func(ctx context.Context, r *Reminders, id int64) error {
				_, err := r.Pause(ctx, db.Owner{UserID: "u1"}, id)
				return err
			},
			check: func(t *testing.T, got db.Reminder, ds []db.Delivery, jobs int, next time.Time) {
				if got.PausedAt == nil || !got.Pending() || got.JobID != nil || jobs != 0 || !got.DueAt.Equal(next) || len(ds) != 1 {
					t.Errorf("%+v, deliveries %+v, %d jobs for the next; want paused on the next, no job", got, ds, jobs)
				}
			},
		},
		{
			name: "skip",
			change: func(ctx context.Context, r *Reminders, id int64) error {
				_, err := r.Skip(ctx, db.Owner{UserID: "u1"}, id)
				return err
			},
			check: func(t *testing.T, got db.Reminder, ds []db.Delivery, jobs int, next time.Time) {
				if !got.Pending() || jobs != 1 || got.JobID == nil || !got.DueAt.Equal(next) || got.ClaimToken != "" || len(ds) != 1 || ds[0].MessageID == "" {
					t.Errorf("%+v, deliveries %+v, %d jobs for the next; want the next planned once, the skipped one's post noted", got, ds, jobs)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			pool := newPool(t)
			fd := newFakeDiscord(t)
			fd.AddChannel("c1")
			model := newHeldModel(t)
			clock := newClock(at(2026, 12, 4, 16, 58))
			s := newScheduler(t, pool, fd.session, Options{Now: clock.Now, Post: model.post})
			p := db.ReminderParams{GuildID: "g1", ChannelID: "c1", UserID: "u1", Content: "今週の話題", Kind: db.KindPost}
			rem, err := s.Reminders().Repeat(ctx, p, parseRule(t, "15分ごと", clock.Now()), tokyo)
			if err != nil {
				t.Fatal(err)
			}
			// Handled 6 minutes late: the next occurrence is near enough to
			// be planned at once.
			next := rem.DueAt.Add(15 * time.Minute)
			clock.Set(rem.DueAt.Add(6 * time.Minute))
			worked := make(chan error, 1)
			go func() { worked <- work(t, s, rem) }()
			pollDB(t, 10*time.Second, "the post being written", func() bool { return model.srv.ChatCalls() == 1 })

			quick, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := tc.change(quick, s.Reminders(), rem.ID); err != nil {
				t.Fatalf("%s while the post is written: %v", tc.name, err)
			}
			close(model.gate)
			if err := <-worked; err != nil && !errors.Is(err, context.Canceled) {
				t.Fatal(err)
			}
			if n := len(fd.posts("c1")); n != 1 {
				t.Fatalf("%d posts, want the one being written", n)
			}
			var jobs int
			if err := pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE kind = 'reminder' AND (args->>'reminder_id')::bigint = $1 AND (args->>'occurrence')::bigint = $2 AND state <> 'cancelled'",
				rem.ID, next.Unix()).Scan(&jobs); err != nil {
				t.Fatal(err)
			}
			tc.check(t, reminder(t, s, rem.ID), deliveries(t, s, rem.ID), jobs, next)
		})
	}
}

// A process that claimed a reminder, posted it and died before recording
// the outcome leaves its claim behind. While its lease runs, another
// attempt waits (snoozed) rather than post; once the lease is over, the
// next attempt takes the occurrence over, finds the dead attempt's message
// by its nonce and records it: the reminder shows once.
func TestClaimLeftBehindIsTakenOver(t *testing.T) {
	ctx := context.Background()
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	s := newScheduler(t, pool, fd.session, Options{})
	rem := create(t, s.Reminders(), "u1", "c1", "薬を飲む", time.Now().Add(time.Minute))
	rem.DueAt = time.Now() // as if its time had come

	// The dead attempt: its claim committed, its message out.
	if _, err := pool.Exec(ctx, "UPDATE reminders SET due_at = $2 WHERE id = $1", rem.ID, rem.DueAt); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.ClaimReminder(ctx, pool, db.Claim{ID: rem.ID, Token: "7.1", Lease: time.Hour, DueBy: rem.DueAt}); err != nil {
		t.Fatal(err)
	}
	dead := &reminderWorker{s: s}
	posted, err := dead.send(ctx, delivery{r: rem, now: rem.DueAt})
	if err != nil {
		t.Fatal(err)
	}

	var snooze *rivertype.JobSnoozeError
	if err := work(t, s, rem); !errors.As(err, &snooze) || snooze.Duration < 59*time.Minute {
		t.Fatalf("attempt during the dead one's lease: %v; want snoozed for the rest of the lease", err)
	}
	if n := len(fd.posts("c1")); n != 1 {
		t.Fatalf("%d posts during the lease, want the dead attempt's only", n)
	}

	// The lease runs out.
	if _, err := pool.Exec(ctx, "UPDATE reminders SET claimed_until = now() - interval '1 second' WHERE id = $1", rem.ID); err != nil {
		t.Fatal(err)
	}
	if err := work(t, s, rem); err != nil {
		t.Fatal(err)
	}
	got := reminder(t, s, rem.ID)
	if n := len(fd.posts("c1")); n != 1 || got.NotifiedAt == nil || got.MessageID != posted.ID || got.ClaimToken != "" {
		t.Errorf("%d posts, row %+v; want the dead attempt's message %s recorded, not posted again", n, got, posted.ID)
	}
}
