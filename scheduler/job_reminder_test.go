package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/yorozu-bot/yorozu/db"
)

func create(t testing.TB, r *Reminders, user, channel, content string, due time.Time) db.Reminder {
	t.Helper()
	rem, err := r.Create(context.Background(), db.ReminderParams{
		SessionKey: "discord:channel:" + channel, ChannelID: channel, UserID: user, Content: content, DueAt: due,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rem
}

func reminder(t testing.TB, s *Scheduler, id int64) db.Reminder {
	t.Helper()
	r, err := db.ReminderByID(context.Background(), s.pool, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func jobState(t testing.TB, s *Scheduler, r db.Reminder) rivertype.JobState {
	t.Helper()
	j, err := s.client.JobGet(context.Background(), *r.JobID)
	if err != nil {
		t.Fatal(err)
	}
	return j.State
}

func TestDeliveredAtDueTime(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	s := newScheduler(t, pool, fd.session, Options{})
	start(t, s)

	tests := []struct {
		name, content string
	}{
		{name: "plain", content: "燃えるゴミを出す"},
		{name: "mass mentions in the text do not ping", content: "@everyone @here <@&555> <@999> 会議"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(fd.posts("c1"))
			due := time.Now().Add(2 * time.Second)
			rem := create(t, s.Reminders(), "u1", "c1", tc.content, due)

			fd.waitFor(t, 15*time.Second, "delivery", func() bool { return len(fd.posts("c1")) > before })
			call := fd.posts("c1")[before]
			if call.Time.Before(due) {
				t.Errorf("delivered at %s, before its time %s", call.Time, due)
			}
			b := decodeBody(t, call)
			if want := "<@u1> ⏰ リマインド: " + tc.content; b.Content != want {
				t.Errorf("content = %q, want %q", b.Content, want)
			}
			am := b.AllowedMentions
			if am == nil || len(am.Parse) != 0 || len(am.Roles) != 0 || len(am.Users) != 1 || am.Users[0] != "u1" || am.RepliedUser {
				t.Errorf("allowed_mentions = %+v, want only user u1", am)
			}
			if b.Nonce != strconv.FormatInt(rem.ID, 10) || !b.EnforceNonce {
				t.Errorf("nonce = %q enforce = %v, want %d, true", b.Nonce, b.EnforceNonce, rem.ID)
			}
			pollDB(t, 5*time.Second, "delivery recorded", func() bool { return reminder(t, s, rem.ID).NotifiedAt != nil })
			got := reminder(t, s, rem.ID)
			if got.MessageID != call.MessageID || got.Attempts != 1 {
				t.Errorf("row = %+v, want message %s after 1 attempt", got, call.MessageID)
			}
		})
	}
}

func TestCancelBeforeDue(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	s := newScheduler(t, pool, fd.session, Options{})
	start(t, s)
	r := s.Reminders()

	now := time.Now()
	cancelled := create(t, r, "u1", "c1", "cancelled", now.Add(2*time.Second))
	kept := create(t, r, "u1", "c1", "kept", now.Add(3*time.Second))

	if _, err := r.Cancel(context.Background(), "u2", cancelled.ID); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("cancel by someone else: %v, want ErrNotFound", err)
	}
	if _, err := r.Cancel(context.Background(), "u1", cancelled.ID); err != nil {
		t.Fatal(err)
	}
	list, err := r.List(context.Background(), "u1", "c1")
	if err != nil || len(list) != 1 || list[0].ID != kept.ID {
		t.Fatalf("list after cancel = %+v, %v; want only %d", list, err, kept.ID)
	}

	// The later reminder going out shows the earlier one's time has passed.
	fd.waitFor(t, 15*time.Second, "the kept reminder", func() bool { return len(fd.posts("c1")) >= 1 })
	posts := fd.posts("c1")
	if len(posts) != 1 || !strings.HasSuffix(decodeBody(t, posts[0]).Content, "kept") {
		t.Fatalf("posts = %+v, want only the kept reminder", posts)
	}
	if st := jobState(t, s, cancelled); st != rivertype.JobStateCancelled {
		t.Errorf("job of cancelled reminder is %s, want cancelled", st)
	}
	// The post is out before its delivery is recorded (no lock is held
	// across the Discord call); once recorded, it cannot be cancelled.
	pollDB(t, 5*time.Second, "kept delivered", func() bool { return reminder(t, s, kept.ID).NotifiedAt != nil })
	if _, err := r.Cancel(context.Background(), "u1", kept.ID); !errors.Is(err, db.ErrReminderNotPending) {
		t.Errorf("cancel delivered: %v, want ErrReminderNotPending", err)
	}
}

func TestCreateRefusals(t *testing.T) {
	pool := newPool(t)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, jst)
	s := newScheduler(t, pool, nil, Options{Now: func() time.Time { return now }, MaxPending: 2, MaxAhead: 30 * 24 * time.Hour})
	r := s.Reminders()
	tests := []struct {
		name    string
		p       db.ReminderParams
		wantErr error
	}{
		{"empty content", db.ReminderParams{Content: "  ", DueAt: now.Add(time.Hour)}, ErrEmptyContent},
		{"too long", db.ReminderParams{Content: strings.Repeat("あ", MaxContentLength+1), DueAt: now.Add(time.Hour)}, ErrContentTooLong},
		{"past", db.ReminderParams{Content: "x", DueAt: now.Add(-61 * time.Second)}, ErrDueInPast},
		{"too far", db.ReminderParams{Content: "x", DueAt: now.Add(31 * 24 * time.Hour)}, ErrTooFarAhead},
		{"slightly past is fine", db.ReminderParams{Content: "x", DueAt: now.Add(-30 * time.Second)}, nil},
		{"second pending", db.ReminderParams{Content: "x", DueAt: now.Add(time.Hour)}, nil},
		{"over the cap", db.ReminderParams{Content: "x", DueAt: now.Add(time.Hour)}, ErrTooManyPending},
		{"cap is per user", db.ReminderParams{UserID: "u2", Content: "x", DueAt: now.Add(time.Hour)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.p.ChannelID = "c1"
			if tc.p.UserID == "" {
				tc.p.UserID = "u1"
			}
			_, err := r.Create(context.Background(), tc.p)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestRestartDeliversLateOnce(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")

	// The first process made the reminder and went down before its time:
	// its clock is 3 min behind, so the reminder, due 2 min after it was
	// made, fell due a minute ago while nothing ran.
	first := newScheduler(t, pool, fd.session, Options{ClientID: "first", Now: func() time.Time { return time.Now().Add(-3 * time.Minute) }})
	start(t, first)
	if err := first.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	rem := create(t, first.Reminders(), "u1", "c1", "会議の準備", first.now().Add(2*time.Minute))
	if err := first.Stop(context.Background()); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	if n := len(fd.posts("c1")); n != 0 {
		t.Fatalf("%d posts before restart", n)
	}

	second := newScheduler(t, pool, fd.session, Options{ClientID: "second"})
	start(t, second)
	fd.waitFor(t, 15*time.Second, "late delivery", func() bool { return len(fd.posts("c1")) >= 1 })
	pollDB(t, 5*time.Second, "job completed", func() bool { return jobState(t, second, rem) == rivertype.JobStateCompleted })

	posts := fd.posts("c1")
	if len(posts) != 1 {
		t.Fatalf("%d posts, want 1", len(posts))
	}
	content := decodeBody(t, posts[0]).Content
	due := rem.DueAt.In(jst).Format("15:04")
	if !strings.HasPrefix(content, "<@u1> ⏰ リマインド: 会議の準備\n（予定 "+due+"、") || !strings.Contains(content, "分遅れでお届けしました）") {
		t.Errorf("content = %q, want a lateness note", content)
	}
}

func TestTwoProcessesDeliverEachOnce(t *testing.T) {
	const n = 200
	pool := newPool(t)
	fd := newFakeDiscord(t)
	channels := []string{"c1", "c2", "c3", "c4"}
	for _, c := range channels {
		fd.AddChannel(c)
	}
	a := newScheduler(t, pool, fd.session, Options{ClientID: "a", MaxPending: n})
	b := newScheduler(t, pool, fd.session, Options{ClientID: "b", MaxPending: n})
	start(t, a)
	start(t, b)

	due := time.Now().Add(3 * time.Second).Truncate(time.Second).Add(500 * time.Millisecond)
	for i := range n {
		r := a.Reminders()
		if i%2 == 1 {
			r = b.Reminders()
		}
		create(t, r, "u1", channels[i%len(channels)], fmt.Sprintf("#%d", i), due)
	}
	total := func() int {
		k := 0
		for _, c := range channels {
			k += len(fd.posts(c))
		}
		return k
	}
	fd.waitFor(t, 30*time.Second, "all deliveries", func() bool { return total() >= n })
	pollDB(t, 10*time.Second, "all jobs completed", func() bool {
		var left int
		err := pool.QueryRow(context.Background(), "SELECT count(*) FROM river_job WHERE kind = 'reminder' AND state <> 'completed'").Scan(&left)
		return err == nil && left == 0
	})

	seen := map[string]int{}
	for _, c := range channels {
		for _, p := range fd.posts(c) {
			seen[decodeBody(t, p).Nonce]++
		}
	}
	if got := total(); got != n || len(seen) != n {
		t.Fatalf("%d posts for %d distinct reminders, want %d each once", got, len(seen), n)
	}
	var delivered int
	pool.QueryRow(context.Background(), "SELECT count(*) FROM reminders WHERE notified_at IS NOT NULL AND message_id <> '' AND attempts = 1").Scan(&delivered)
	if delivered != n {
		t.Errorf("%d rows delivered, want %d", delivered, n)
	}
}

func TestTransientErrorRetried(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	fd.rt.failPosts.Store(1)
	s := newScheduler(t, pool, fd.session, Options{})
	start(t, s)

	rem := create(t, s.Reminders(), "u1", "c1", "retry me", time.Now().Add(time.Second))
	fd.waitFor(t, 20*time.Second, "delivery after a 500", func() bool { return len(fd.posts("c1")) >= 1 })
	pollDB(t, 5*time.Second, "delivery recorded", func() bool { return reminder(t, s, rem.ID).NotifiedAt != nil })
	got := reminder(t, s, rem.ID)
	if got.Attempts != 2 || got.LastError != "" || got.FailedAt != nil {
		t.Errorf("row = %+v, want delivered on attempt 2", got)
	}
	if n := len(fd.posts("c1")); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}

func TestTransientErrorsGiveUp(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	// The scheduler's clock moves to the reminder's time once it is made;
	// River's stays an hour before, so it leaves the job to the test.
	var ahead atomic.Int64
	s := newScheduler(t, pool, fd.session, Options{Now: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }})
	start(t, s)
	rem := create(t, s.Reminders(), "u1", "c1", "x", time.Now().Add(time.Hour))
	ahead.Store(int64(time.Hour + time.Second))

	// Each attempt fails with a 500; the row counts them and the fifth
	// gives up. Attempts are made by hand so the backoff is not waited out.
	fd.rt.failPosts.Store(100)
	w := &reminderWorker{s: s}
	for i := 1; i <= MaxDeliveryAttempts; i++ {
		err := w.Work(context.Background(), &river.Job[reminderArgs]{JobRow: &rivertype.JobRow{Attempt: i}, Args: reminderArgs{ReminderID: rem.ID}})
		got := reminder(t, s, rem.ID)
		if got.Attempts != i || !strings.Contains(got.LastError, "discord 500") {
			t.Fatalf("after attempt %d: %+v", i, got)
		}
		if (i < MaxDeliveryAttempts) != (got.FailedAt == nil) || err == nil {
			t.Fatalf("after attempt %d: failed_at %v, err %v", i, got.FailedAt, err)
		}
	}
}

func TestPermanentErrorRecorded(t *testing.T) {
	tests := []struct {
		name         string
		status, code int
		msg          string
	}{
		{"unknown channel", 404, 10003, "Unknown Channel"},
		{"missing access", 403, 50001, "Missing Access"},
		{"cannot DM", 403, 50007, "Cannot send messages to this user"},
	}
	pool := newPool(t)
	fd := newFakeDiscord(t)
	s := newScheduler(t, pool, fd.session, Options{})
	start(t, s)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ch := fmt.Sprintf("bad%d", i)
			fd.FailChannel(ch, tc.status, tc.code, tc.msg)
			rem := create(t, s.Reminders(), "u1", ch, "x", time.Now().Add(time.Second))
			pollDB(t, 15*time.Second, "failure recorded", func() bool { return reminder(t, s, rem.ID).FailedAt != nil })
			got := reminder(t, s, rem.ID)
			want := fmt.Sprintf("discord %d (%d): %s", tc.status, tc.code, tc.msg)
			if got.LastError != want || got.Attempts != 1 || got.NotifiedAt != nil {
				t.Errorf("row = %+v, want failed once with %q", got, want)
			}
			pollDB(t, 5*time.Second, "job cancelled", func() bool { return jobState(t, s, rem) == rivertype.JobStateCancelled })
		})
	}
}

func TestReminderText(t *testing.T) {
	due := time.Date(2026, 12, 1, 15, 0, 0, 0, jst)
	r := db.Reminder{UserID: "42", Content: "会議", DueAt: due}
	tests := []struct {
		name string
		now  time.Time
		want string
	}{
		{"on time", due.Add(300 * time.Millisecond), "<@42> ⏰ リマインド: 会議"},
		{"late minutes", due.Add(12*time.Minute + 5*time.Second), "<@42> ⏰ リマインド: 会議\n（予定 15:00、12分遅れでお届けしました）"},
		{"late hours", due.Add(2*time.Hour + 5*time.Minute), "<@42> ⏰ リマインド: 会議\n（予定 15:00、2時間5分遅れでお届けしました）"},
		{"next day", due.Add(26 * time.Hour), "<@42> ⏰ リマインド: 会議\n（予定 12月1日 15:00、1日2時間遅れでお届けしました）"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ReminderText(r, tc.now, jst, time.Minute); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
