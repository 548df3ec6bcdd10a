package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/recur"
)

// tokyo is the zone schedules are read in: an IANA one, as stored rules
// name their zone.
var tokyo = func() *time.Location {
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		panic(err)
	}
	return loc
}()

// testClock is a scheduler clock a test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(t time.Time) *testClock { return &testClock{t: t} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func parseRule(t testing.TB, words string, now time.Time) recur.Rule {
	t.Helper()
	r, err := recur.Parse(words, now, tokyo)
	if err != nil {
		t.Fatalf("parse %q: %v", words, err)
	}
	return r
}

func repeat(t testing.TB, r *Reminders, user, channel, content, words string) db.Reminder {
	t.Helper()
	rem, err := r.Repeat(context.Background(), db.ReminderParams{
		SessionKey: "discord:channel:" + channel, GuildID: "g1", ChannelID: channel, UserID: user, Content: content,
	}, parseRule(t, words, r.Now()), tokyo)
	if err != nil {
		t.Fatal(err)
	}
	return rem
}

// work runs the job of rem's current occurrence by hand, as River would.
func work(t testing.TB, s *Scheduler, rem db.Reminder) error {
	t.Helper()
	args := reminderArgs{ReminderID: rem.ID, Post: rem.Kind == db.KindPost}
	if rem.Repeats() {
		args.Occurrence = rem.DueAt.Unix()
	}
	w := &reminderWorker{s: s}
	return w.Work(context.Background(), &river.Job[reminderArgs]{JobRow: &rivertype.JobRow{Attempt: 1}, Args: args})
}

func deliveries(t testing.TB, s *Scheduler, id int64) []db.Delivery {
	t.Helper()
	ds, err := db.RecentDeliveries(context.Background(), s.pool, []int64{id}, 100)
	if err != nil {
		t.Fatal(err)
	}
	return ds[id]
}

func at(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, tokyo) }

func TestDailyDeliveredOnceThenPlansTomorrow(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	clock := newClock(at(2026, 12, 2, 6, 59))
	s := newScheduler(t, pool, fd.session, Options{Now: clock.Now, ButtonKey: []byte("k")})

	rem := repeat(t, s.Reminders(), "u1", "c1", "薬を飲む", "毎朝7時")
	if want := at(2026, 12, 2, 7, 0); !rem.DueAt.Equal(want) {
		t.Fatalf("first occurrence %s, want %s", rem.DueAt, want)
	}
	if !strings.Contains(rem.RRule, "FREQ=DAILY") || rem.TimeZone != "Asia/Tokyo" {
		t.Errorf("stored rule %q in %q", rem.RRule, rem.TimeZone)
	}

	clock.Set(at(2026, 12, 2, 7, 0).Add(300 * time.Millisecond))
	if err := work(t, s, rem); err != nil {
		t.Fatal(err)
	}
	// The same occurrence's job again (a retry, a second process): nothing.
	if err := work(t, s, rem); err != nil {
		t.Fatal(err)
	}
	posts := fd.posts("c1")
	if len(posts) != 1 {
		t.Fatalf("%d posts, want 1", len(posts))
	}
	b := decodeBody(t, posts[0])
	if b.Content != "<@u1> ⏰ リマインド: 薬を飲む" {
		t.Errorf("content %q", b.Content)
	}
	if want := reminderNonce(rem); b.Nonce != want || len(b.Nonce) > 25 {
		t.Errorf("nonce %q, want %q", b.Nonce, want)
	}
	if !strings.Contains(string(posts[0].Body), ButtonPrefix+ActionSkip+":") || !strings.Contains(string(posts[0].Body), "次回をスキップ") {
		t.Errorf("no skip button in %s", posts[0].Body)
	}

	got := reminder(t, s, rem.ID)
	if want := at(2026, 12, 3, 7, 0); !got.DueAt.Equal(want) || !got.Pending() || got.Occurrences != 1 {
		t.Errorf("after delivery: due %s pending %v occurrences %d, want %s, pending, 1", got.DueAt, got.Pending(), got.Occurrences, want)
	}
	// Tomorrow is too far off for a job: the planner makes it once the
	// occurrence is near, once however often it runs.
	if got.JobID != nil {
		t.Fatalf("next occurrence a day off already has job %d", *got.JobID)
	}
	clock.Set(at(2026, 12, 3, 6, 40))
	if n, err := s.PlanUpcoming(context.Background()); err != nil || n != 0 {
		t.Fatalf("planned %d at 6:40, %v; want none yet", n, err)
	}
	clock.Set(at(2026, 12, 3, 6, 50))
	for want := 1; want >= 0; want-- {
		if n, err := s.PlanUpcoming(context.Background()); err != nil || n != want {
			t.Fatalf("planned %d at 6:50, %v; want %d", n, err, want)
		}
	}
	got = reminder(t, s, rem.ID)
	if got.JobID == nil || *got.JobID == *rem.JobID {
		t.Fatalf("next occurrence has no job of its own: %v", got.JobID)
	}
	j, err := s.client.JobGet(context.Background(), *got.JobID)
	if err != nil || !j.ScheduledAt.Equal(at(2026, 12, 3, 7, 0)) {
		t.Errorf("next job %+v, %v", j, err)
	}
	ds := deliveries(t, s, rem.ID)
	if len(ds) != 1 || ds[0].MessageID == "" || ds[0].Late() != 300*time.Millisecond {
		t.Errorf("deliveries %+v", ds)
	}
	if next := NextOccurrences(got, 3); len(next) != 3 || !next[2].Equal(at(2026, 12, 5, 7, 0)) {
		t.Errorf("next occurrences %v", next)
	}
}

func TestMonthlySkipsNewYearsDay(t *testing.T) {
	pool := newPool(t)
	clock := newClock(at(2026, 12, 15, 12, 0))
	s := newScheduler(t, pool, nil, Options{Now: clock.Now})
	rem := repeat(t, s.Reminders(), "u1", "c1", "家賃", "毎月1日の9時、祝日は除く")
	if want := at(2027, 2, 1, 9, 0); !rem.DueAt.Equal(want) {
		t.Errorf("first occurrence %s, want %s (2027-01-01 is 元日)", rem.DueAt, want)
	}
	if !rem.SkipHolidays {
		t.Error("holiday flag not stored")
	}
}

func TestCatchUpAfterDowntime(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	clock := newClock(at(2026, 12, 2, 6, 0))
	s := newScheduler(t, pool, fd.session, Options{Now: clock.Now})
	rem := repeat(t, s.Reminders(), "u1", "c1", "ゴミ出し", "毎日7時")

	if rem.JobID != nil {
		t.Fatalf("an occurrence an hour off has job %d already", *rem.JobID)
	}

	// Down from before 7:00 on the 2nd until 8:00 on the 4th: three missed.
	// Starting, the planner gives the overdue occurrence its job.
	clock.Set(at(2026, 12, 4, 8, 0))
	start(t, s)
	fd.waitFor(t, 10*time.Second, "the catch-up", func() bool { return len(fd.posts("c1")) > 0 })
	settle(t, s)
	posts := fd.posts("c1")
	if len(posts) != 1 {
		t.Fatalf("%d posts, want one catch-up", len(posts))
	}
	want := "<@u1> ⏰ リマインド: ゴミ出し\n（ボットが止まっていた間に3回分を逃しました。次回は <t:" // 12月5日 7:00
	if c := decodeBody(t, posts[0]).Content; !strings.HasPrefix(c, want) {
		t.Errorf("content %q, want prefix %q", c, want)
	}
	got := reminder(t, s, rem.ID)
	if !got.DueAt.Equal(at(2026, 12, 5, 7, 0)) || got.Occurrences != 3 {
		t.Errorf("after catch-up: due %s, occurrences %d", got.DueAt, got.Occurrences)
	}
	if ds := deliveries(t, s, rem.ID); len(ds) != 1 || ds[0].Covers != 3 {
		t.Errorf("deliveries %+v", ds)
	}
}

func TestCountEndsTheRule(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	clock := newClock(at(2026, 12, 2, 6, 0))
	s := newScheduler(t, pool, fd.session, Options{Now: clock.Now})
	rem := repeat(t, s.Reminders(), "u1", "c1", "ストレッチ", "毎日7時 2回")
	for day := 2; day <= 3; day++ {
		clock.Set(at(2026, 12, day, 7, 0))
		if err := work(t, s, reminder(t, s, rem.ID)); err != nil {
			t.Fatal(err)
		}
	}
	got := reminder(t, s, rem.ID)
	if got.Pending() || got.NotifiedAt == nil || got.Occurrences != 2 || len(fd.posts("c1")) != 2 {
		t.Errorf("after two of 2回: %+v, %d posts", got, len(fd.posts("c1")))
	}
}

func TestCountStartsAtTheFirstOccurrenceToCome(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	// Said at 14:00: today's 8:00 is gone and must not use up one of the 2回.
	clock := newClock(at(2026, 12, 2, 14, 0))
	s := newScheduler(t, pool, fd.session, Options{Now: clock.Now})
	rem := repeat(t, s.Reminders(), "u1", "c1", "ストレッチ", "毎日8時 2回")
	if got := NextOccurrences(rem, 5); len(got) != 2 || !got[0].Equal(at(2026, 12, 3, 8, 0)) || !got[1].Equal(at(2026, 12, 4, 8, 0)) {
		t.Errorf("occurrences %v, want the 3rd and the 4th", got)
	}
}

func TestPauseResumeSkip(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	clock := newClock(at(2026, 12, 3, 6, 55)) // a Thursday, 5 minutes before
	s := newScheduler(t, pool, fd.session, Options{Now: clock.Now})
	r := s.Reminders()
	ctx := context.Background()
	rem := repeat(t, r, "u1", "c1", "燃えるゴミ", "毎週月・木の7時")
	if want := at(2026, 12, 3, 7, 0); !rem.DueAt.Equal(want) {
		t.Fatalf("first %s, want Thursday %s", rem.DueAt, want)
	}
	owner := db.Owner{UserID: "u1"}

	if _, err := r.Pause(ctx, db.Owner{UserID: "u2"}, rem.ID); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("someone else's pause: %v, want not found", err)
	}
	paused, err := r.Pause(ctx, owner, rem.ID)
	if err != nil || paused.PausedAt == nil {
		t.Fatalf("pause: %+v, %v", paused, err)
	}
	if _, err := r.Pause(ctx, owner, rem.ID); !errors.Is(err, ErrPaused) {
		t.Errorf("second pause: %v", err)
	}
	pollDB(t, 5*time.Second, "job cancelled", func() bool { return jobState(t, s, rem) == rivertype.JobStateCancelled })
	// Its job, had it run anyway, delivers nothing while paused.
	clock.Set(at(2026, 12, 3, 7, 0))
	if err := work(t, s, rem); err != nil || len(fd.posts("c1")) != 0 {
		t.Fatalf("paused delivery: %v, %d posts", err, len(fd.posts("c1")))
	}

	// Resumed on Friday: the next is Monday, Thursday's missed one is not
	// sent.
	clock.Set(at(2026, 12, 4, 12, 0))
	resumed, err := r.Resume(ctx, db.Owner{UserID: "mod", Guild: "g1"}, rem.ID)
	if err != nil || resumed.PausedAt != nil || !resumed.DueAt.Equal(at(2026, 12, 7, 7, 0)) {
		t.Fatalf("resume: %+v, %v", resumed, err)
	}
	if _, err := r.Resume(ctx, owner, rem.ID); !errors.Is(err, ErrNotPaused) {
		t.Errorf("second resume: %v", err)
	}

	skipped, err := r.Skip(ctx, owner, rem.ID)
	if err != nil || !skipped.DueAt.Equal(at(2026, 12, 10, 7, 0)) {
		t.Fatalf("skip: %+v, %v", skipped, err)
	}
	// The skipped occurrence's job is stale: it posts nothing.
	clock.Set(at(2026, 12, 7, 7, 0))
	if err := work(t, s, resumed); err != nil || len(fd.posts("c1")) != 0 {
		t.Fatalf("skipped occurrence: %v, %d posts", err, len(fd.posts("c1")))
	}
	clock.Set(at(2026, 12, 10, 7, 0))
	if err := work(t, s, skipped); err != nil || len(fd.posts("c1")) != 1 {
		t.Fatalf("after skip: %v, %d posts", err, len(fd.posts("c1")))
	}

	one := create(t, r, "u1", "c1", "単発", clock.Now().Add(time.Hour))
	if _, err := r.Skip(ctx, owner, one.ID); !errors.Is(err, ErrNotRepeating) {
		t.Errorf("skip of a one-shot: %v", err)
	}
}

func TestSnoozeMakesAOneShotCopy(t *testing.T) {
	pool := newPool(t)
	clock := newClock(at(2026, 12, 2, 7, 0))
	s := newScheduler(t, pool, nil, Options{Now: clock.Now})
	rem := repeat(t, s.Reminders(), "u1", "c1", "薬", "毎日8時")
	copy, err := s.Reminders().Snooze(context.Background(), db.Owner{UserID: "u1"}, rem.ID, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if copy.Repeats() || !copy.DueAt.Equal(clock.Now().Add(10*time.Minute)) || copy.Content != "薬" || copy.ID == rem.ID {
		t.Errorf("snooze copy %+v", copy)
	}
	if _, err := s.Reminders().Snooze(context.Background(), db.Owner{UserID: "u2"}, rem.ID, time.Hour); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("someone else's snooze: %v", err)
	}
}

func TestScheduledPost(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	clock := newClock(at(2026, 12, 4, 16, 0)) // a Friday
	fail := false
	var prompts []string
	s := newScheduler(t, pool, fd.session, Options{Now: clock.Now, MaxPostsPerSpace: 1, ButtonKey: []byte("k"),
		Post: func(_ context.Context, r db.Reminder) (string, error) {
			prompts = append(prompts, r.Content)
			if fail {
				return "", errors.New("ollama: connection refused")
			}
			return "今週の話題: @everyone 忘年会", nil
		}})
	r := s.Reminders()
	p := db.ReminderParams{GuildID: "g1", ChannelID: "c1", UserID: "u1", Content: "今週の話題をまとめて", Kind: db.KindPost}
	rem, err := r.Repeat(context.Background(), p, parseRule(t, "毎週金曜17時", clock.Now()), tokyo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Repeat(context.Background(), p, parseRule(t, "毎週月曜9時", clock.Now()), tokyo); !errors.Is(err, ErrTooManyPosts) {
		t.Errorf("second post over the limit of 1: %v", err)
	}

	clock.Set(at(2026, 12, 4, 17, 0))
	if err := work(t, s, rem); err != nil {
		t.Fatal(err)
	}
	posts := fd.posts("c1")
	if len(posts) != 1 || len(prompts) != 1 || prompts[0] != "今週の話題をまとめて" {
		t.Fatalf("%d posts, prompts %q", len(posts), prompts)
	}
	b := decodeBody(t, posts[0])
	if b.Content != "今週の話題: @everyone 忘年会" || len(b.AllowedMentions.Users) != 0 || len(b.AllowedMentions.Parse) != 0 {
		t.Errorf("post %+v", b)
	}
	if strings.Contains(string(posts[0].Body), ButtonPrefix) {
		t.Error("a scheduled post carries reminder buttons")
	}

	// The model down: nothing posted, logged as the delivery's error, and
	// the next Friday planned.
	fail = true
	next := reminder(t, s, rem.ID)
	clock.Set(at(2026, 12, 11, 17, 0))
	if err := work(t, s, next); err != nil {
		t.Fatal(err)
	}
	got := reminder(t, s, rem.ID)
	if len(fd.posts("c1")) != 1 || !got.Pending() || !got.DueAt.Equal(at(2026, 12, 18, 17, 0)) {
		t.Errorf("after a failed model call: %d posts, %+v", len(fd.posts("c1")), got)
	}
	if ds := deliveries(t, s, rem.ID); len(ds) != 2 || !strings.Contains(ds[0].Error, "connection refused") || ds[0].MessageID != "" {
		t.Errorf("deliveries %+v", ds)
	}
}

func TestRepeatRefusals(t *testing.T) {
	pool := newPool(t)
	clock := newClock(at(2026, 12, 2, 12, 0))
	s := newScheduler(t, pool, nil, Options{Now: clock.Now, MaxPending: 1})
	r := s.Reminders()
	ctx := context.Background()
	p := db.ReminderParams{ChannelID: "c1", UserID: "u1", Content: "x"}
	tests := []struct {
		name string
		rule recur.Rule
	}{
		{"every 5 minutes", recur.Rule{Freq: recur.Minutely, Interval: 5}},
		{"30 February", recur.Rule{Freq: recur.Yearly, Month: time.February, MonthDays: []int{30}, Hour: 9}},
		{"ends before it starts", recur.Rule{Freq: recur.Daily, Hour: 9, Start: at(2027, 3, 1, 0, 0), Until: at(2027, 2, 1, 0, 0)}},
	}
	for _, tc := range tests {
		if _, err := r.Repeat(ctx, p, tc.rule, tokyo); !errors.Is(err, ErrBadRule) {
			t.Errorf("%s: %v, want ErrBadRule", tc.name, err)
		}
	}
	// 03:00 is fine for a reminder.
	if _, err := r.Repeat(ctx, p, recur.Rule{Freq: recur.Daily, Hour: 3, Minute: 30}, tokyo); err != nil {
		t.Errorf("daily 3:30: %v", err)
	}
	if _, err := r.Repeat(ctx, p, recur.Rule{Freq: recur.Daily, Hour: 9}, tokyo); !errors.Is(err, ErrTooManyPending) {
		t.Errorf("over REMINDER_MAX_PENDING: %v", err)
	}
}

func TestButtonIDs(t *testing.T) {
	pool := newPool(t)
	s := newScheduler(t, pool, nil, Options{ButtonKey: []byte("secret")})
	other := newScheduler(t, pool, nil, Options{ButtonKey: []byte("another")})
	id := buttonID([]byte("secret"), ActionSnooze10, 42)
	if len(id) > 100 {
		t.Errorf("custom id %q is longer than Discord's 100", id)
	}
	if a, n, err := s.Reminders().ReadButton(id); err != nil || a != ActionSnooze10 || n != 42 {
		t.Errorf("read %q: %q %d %v", id, a, n, err)
	}
	if _, _, err := other.Reminders().ReadButton(id); !errors.Is(err, commands.ErrForgedButton) {
		t.Errorf("another key: %v, want forged", err)
	}
	forged := strings.Replace(id, ":42:", ":43:", 1)
	if _, _, err := s.Reminders().ReadButton(forged); !errors.Is(err, commands.ErrForgedButton) {
		t.Errorf("changed id: %v, want forged", err)
	}
	for _, bad := range []string{"", "yz:r:", "yz:r:s10:x:abc", "other:thing", commands.ButtonSigner{Key: []byte("secret")}.ID(ButtonPrefix, "nope", "1")} {
		if _, _, err := s.Reminders().ReadButton(bad); err == nil {
			t.Errorf("%q read without error", bad)
		}
	}
}

// releaseDue makes the jobs of the reminders due by at on the test's clock
// available now, as River would once its wall clock got there (a job that
// ran early waits, snoozed, for its time on the scheduler's clock).
func releaseDue(t testing.TB, s *Scheduler, at time.Time) {
	t.Helper()
	settle(t, s)
	// The planner's minute is River's, not the test's: plan now.
	if _, err := s.PlanUpcoming(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := s.pool.Exec(context.Background(), `
UPDATE river_job j SET scheduled_at = now(), state = 'available'
FROM reminders r
WHERE j.kind = 'reminder' AND j.state IN ('scheduled', 'retryable')
  AND r.id = (j.args->>'reminder_id')::bigint AND r.due_at <= $1`, at)
	if err != nil {
		t.Fatal(err)
	}
	// River's scheduler tells the queue of the jobs it makes available;
	// so does the test (the queue's poll is a fallback, seconds apart).
	if err := riverWake(func() riverdriver.Executor { return s.client.Driver().GetExecutor() }, QueueReminders)(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// settle waits until no reminder job runs or waits to: the jobs River ran
// early, since its clock is ahead of the test's, have gone back to wait.
func settle(t testing.TB, s *Scheduler) {
	t.Helper()
	pollDB(t, 30*time.Second, "reminder jobs settled", func() bool {
		var busy int
		err := s.pool.QueryRow(context.Background(),
			"SELECT count(*) FROM river_job WHERE kind = 'reminder' AND state IN ('available', 'running')").Scan(&busy)
		return err == nil && busy == 0
	})
}

func TestTwoProcessesDeliverEachOccurrenceOnce(t *testing.T) {
	const n = 40
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	clock := newClock(at(2026, 12, 2, 6, 55))
	a := newScheduler(t, pool, fd.session, Options{ClientID: "a", Now: clock.Now, Location: tokyo, MaxPending: n})
	b := newScheduler(t, pool, fd.session, Options{ClientID: "b", Now: clock.Now, Location: tokyo, MaxPending: n})
	start(t, a)
	start(t, b)
	ids := map[int64]bool{}
	for i := range n {
		s := a
		if i%2 == 1 {
			s = b
		}
		ids[repeat(t, s.Reminders(), "u1", "c1", fmt.Sprintf("#%d", i), "毎日7時").ID] = true
	}
	// Planning an occurrence again (another process, a retry) makes no
	// second job.
	first := reminder(t, a, 1)
	var again *int64
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		var err error
		again, err = a.insertJob(context.Background(), tx, first)
		return err
	})
	if err != nil || first.JobID == nil || again == nil || *again != *first.JobID {
		t.Fatalf("second plan of the same occurrence (due %s): job %v, %v; want %v", first.DueAt, again, err, first.JobID)
	}

	for day := 2; day <= 3; day++ {
		settle(t, a)
		if day > 2 {
			// Both planners at once plan each occurrence once.
			clock.Set(at(2026, 12, day, 6, 55))
			var wg sync.WaitGroup
			planned := make([]int, 2)
			for i, s := range []*Scheduler{a, b} {
				wg.Go(func() {
					var err error
					if planned[i], err = s.PlanUpcoming(context.Background()); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			var jobs int
			if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM river_job WHERE kind = 'reminder' AND scheduled_at = $1",
				at(2026, 12, day, 7, 0)).Scan(&jobs); err != nil || jobs != n || planned[0]+planned[1] != n {
				t.Fatalf("two planners: %d jobs, planned %v (%v); want %d", jobs, planned, err, n)
			}
		}
		clock.Set(at(2026, 12, day, 7, 0))
		releaseDue(t, a, clock.Now())
		want := n * (day - 1)
		fd.waitFor(t, 30*time.Second, "deliveries", func() bool { return len(fd.posts("c1")) >= want })
		pollDB(t, 10*time.Second, "moved on to the next occurrences", func() bool {
			var planned int
			err := pool.QueryRow(context.Background(), "SELECT count(*) FROM reminders WHERE due_at = $1",
				at(2026, 12, day+1, 7, 0)).Scan(&planned)
			return err == nil && planned == n
		})
	}
	time.Sleep(500 * time.Millisecond)
	if got := len(fd.posts("c1")); got != 2*n {
		t.Fatalf("%d posts, want %d (each of %d reminders on two days)", got, 2*n, n)
	}
	seen := map[string]bool{}
	for _, c := range fd.posts("c1") {
		nonce := decodeBody(t, c).Nonce
		if seen[nonce] {
			t.Errorf("nonce %s posted twice", nonce)
		}
		seen[nonce] = true
	}
	var deliveries int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM reminder_deliveries WHERE message_id <> ''").Scan(&deliveries); err != nil || deliveries != 2*n {
		t.Errorf("%d deliveries recorded, want %d (%v)", deliveries, 2*n, err)
	}
}

// A job River runs before its time on the scheduler's clock (the
// database's clock is ahead) waits for it, snoozed, and posts nothing.
func TestEarlyJobWaitsForItsTime(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	clock := newClock(at(2026, 12, 2, 6, 59))
	s := newScheduler(t, pool, fd.session, Options{Now: clock.Now})
	rem := repeat(t, s.Reminders(), "u1", "c1", "薬", "毎朝7時")
	err := work(t, s, rem)
	var snooze *river.JobSnoozeError
	if !errors.As(err, &snooze) || snooze.Duration != time.Minute || len(fd.posts("c1")) != 0 {
		t.Fatalf("early run: %v, %d posts; want a one-minute snooze and none", err, len(fd.posts("c1")))
	}
	clock.Set(at(2026, 12, 2, 7, 0))
	if err := work(t, s, rem); err != nil || len(fd.posts("c1")) != 1 {
		t.Fatalf("on time: %v, %d posts", err, len(fd.posts("c1")))
	}
}

// A rule that ran out while paused ends the reminder on resume.
func TestResumeAfterTheRuleEnded(t *testing.T) {
	pool := newPool(t)
	clock := newClock(at(2026, 12, 2, 6, 0))
	s := newScheduler(t, pool, nil, Options{Now: clock.Now})
	r := s.Reminders()
	rem := repeat(t, r, "u1", "c1", "年末の掃除", "毎日7時 12月5日まで")
	owner := db.Owner{UserID: "u1"}
	if _, err := r.Pause(context.Background(), owner, rem.ID); err != nil {
		t.Fatal(err)
	}
	clock.Set(at(2026, 12, 10, 12, 0))
	got, err := r.Resume(context.Background(), owner, rem.ID)
	if err != nil || got.NotifiedAt == nil || got.PausedAt != nil || got.Pending() {
		t.Fatalf("resume after the end: %+v, %v", got, err)
	}
	if stored := reminder(t, s, rem.ID); stored.Pending() || stored.PausedAt != nil {
		t.Errorf("stored %+v, want ended", stored)
	}
}

// A repeating reminder delivered on a national holiday says which.
func TestHolidayNamedOnDelivery(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	clock := newClock(at(2026, 12, 31, 12, 0))
	s := newScheduler(t, pool, fd.session, Options{Now: clock.Now})
	rem := repeat(t, s.Reminders(), "u1", "c1", "薬", "毎日7時")
	clock.Set(at(2027, 1, 1, 7, 0))
	if err := work(t, s, rem); err != nil {
		t.Fatal(err)
	}
	if c := decodeBody(t, fd.posts("c1")[0]).Content; c != "<@u1> ⏰ リマインド: 薬\n（今日は元日です）" {
		t.Errorf("content %q", c)
	}
}

// TestEditAndTestSend: an edit gives a reminder its new rule, channel and
// text, its old job cancelled and the new first occurrence delivered with
// the new text; a test send posts once, marked, and changes nothing of
// the schedule.
func TestEditAndTestSend(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	fd.AddChannel("c2")
	clock := newClock(at(2026, 12, 3, 6, 55)) // a Thursday, 5 minutes before
	s := newScheduler(t, pool, fd.session, Options{Now: clock.Now})
	r := s.Reminders()
	ctx := context.Background()
	rem := repeat(t, r, "u1", "c1", "燃えるゴミ", "毎週月・木の7時")

	msgID, err := r.SendTest(ctx, rem.ID)
	if err != nil || msgID == "" {
		t.Fatalf("test send: %q, %v", msgID, err)
	}
	if posts := fd.posts("c1"); len(posts) != 1 || !strings.HasPrefix(decodeBody(t, posts[0]).Content, TestMark) ||
		!strings.Contains(decodeBody(t, posts[0]).Content, "燃えるゴミ") || strings.Contains(string(posts[0].Body), "components") {
		t.Fatalf("the test send posted %+v", posts)
	}
	if same, err := db.ReminderByID(ctx, pool, rem.ID); err != nil || !same.DueAt.Equal(rem.DueAt) || same.Occurrences != 0 || *same.JobID != *rem.JobID {
		t.Fatalf("after the test send: %+v, %v", same, err)
	}

	rule := parseRule(t, "毎朝8時", clock.Now())
	edited, err := r.Edit(ctx, rem.ID, db.ReminderParams{GuildID: "g1", ChannelID: "c2", UserID: "u1", Content: "資源ゴミ"}, &rule, tokyo)
	if err != nil || edited.ChannelID != "c2" || edited.Content != "資源ゴミ" || !edited.DueAt.Equal(at(2026, 12, 3, 8, 0)) {
		t.Fatalf("edit: %+v, %v", edited, err)
	}
	pollDB(t, 5*time.Second, "the old job cancelled", func() bool { return jobState(t, s, rem) == rivertype.JobStateCancelled })
	clock.Set(at(2026, 12, 3, 8, 0))
	if err := work(t, s, edited); err != nil {
		t.Fatal(err)
	}
	if posts := fd.posts("c2"); len(posts) != 1 || !strings.Contains(decodeBody(t, posts[0]).Content, "資源ゴミ") {
		t.Errorf("the edited reminder posted %+v in c2", posts)
	}
	if _, err := r.Edit(ctx, rem.ID, db.ReminderParams{ChannelID: "c2", UserID: "u1", Content: "  "}, &rule, tokyo); !errors.Is(err, ErrEmptyContent) {
		t.Errorf("an edit to no text: %v", err)
	}
}
