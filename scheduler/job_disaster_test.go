package scheduler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/disaster"
	"github.com/yorozu-bot/yorozu/internal/logtest"
	"github.com/yorozu-bot/yorozu/jma"
)

// fakeDisasterJMA serves the disaster package's fixtures under JMA's paths,
// with an ETag per body as JMA's CDN sends.
type fakeDisasterJMA struct {
	*httptest.Server
	down atomic.Bool
	hits atomic.Int32

	mu    sync.Mutex
	files map[string]string // path under the API root -> fixture
}

func newFakeDisasterJMA(t testing.TB) *fakeDisasterJMA {
	t.Helper()
	j := &fakeDisasterJMA{files: map[string]string{"common/const/area.json": "area.json"}}
	j.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		j.hits.Add(1)
		if j.down.Load() {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		j.mu.Lock()
		name, ok := j.files[strings.TrimPrefix(r.URL.Path, "/")]
		j.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		body, err := os.ReadFile("../disaster/testdata/" + name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(j.Close)
	return j
}

// serve makes path answer with the fixture name.
func (j *fakeDisasterJMA) serve(path, name string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.files[path] = name
}

// quakeClock is a clock tests move.
type quakeClock struct{ t atomic.Pointer[time.Time] }

func newQuakeClock(s string) *quakeClock {
	c := &quakeClock{}
	c.set(s)
	return c
}

func (c *quakeClock) set(s string) {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, jst)
	if err != nil {
		panic(err)
	}
	c.t.Store(&t)
}

func (c *quakeClock) now() time.Time { return *c.t.Load() }

const disasterChannel = "777"

type disasterEnv struct {
	pool    *pgxpool.Pool
	jma     *fakeDisasterJMA
	discord *fakeDiscord
	clock   *quakeClock
	logs    *logtest.Buffer
	opts    DisasterOptions
}

// newDisasterEnv posts as the bot into disasterChannel at 2026-01-10 09:06
// JST, a minute after the fixtures' last earthquake report.
func newDisasterEnv(t *testing.T) *disasterEnv {
	t.Helper()
	e := &disasterEnv{pool: newPool(t), jma: newFakeDisasterJMA(t), discord: newFakeDiscord(t),
		clock: newQuakeClock("2026-01-10 09:06"), logs: &logtest.Buffer{}}
	e.discord.AddChannel(disasterChannel)
	e.opts = DisasterOptions{
		DB:     e.pool,
		Dest:   DisasterDest{ChannelID: disasterChannel, Discord: e.discord.session},
		Now:    e.clock.now,
		Logger: slog.New(slog.NewTextHandler(e.logs, nil)),
	}
	return e
}

// poller is a new process's poll: its own JMA client, nothing remembered.
func (e *disasterEnv) poller(edit func(*DisasterOptions)) *Disaster {
	o := e.opts
	o.JMA = jma.NewClient(jma.ClientOptions{BaseURL: e.jma.URL, HTTPClient: e.jma.Client()})
	if edit != nil {
		edit(&o)
	}
	return NewDisaster(o)
}

func run(t *testing.T, d *Disaster) {
	t.Helper()
	if err := d.Run(context.Background(), time.Time{}); err != nil {
		t.Fatalf("run: %v", err)
	}
}

func (e *disasterEnv) messages() []discordtest.Message { return e.discord.BotMessages(disasterChannel) }

func TestQuakeReportsMakeOneMessageEditedOnce(t *testing.T) {
	e := newDisasterEnv(t)
	d := e.poller(nil)
	e.jma.serve(disaster.QuakeListPath, "quake_01_sokuhou.json")
	run(t, d)
	msgs := e.messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages after the 震度速報, want 1: %+v", len(msgs), msgs)
	}
	first := msgs[0]
	for _, want := range []string{"【強い揺れ】", "最大震度5強", "震度5強　石川県", "震度4　富山県", "震度速報　1月10日 9時02分発表", disaster.Source} {
		if !strings.Contains(first.Content, want) {
			t.Errorf("first post lacks %q:\n%s", want, first.Content)
		}
	}
	if len(first.AllowedMentions.Parse) != 0 || len(first.AllowedMentions.Roles) != 0 || !first.EnforceNonce {
		t.Errorf("first post pings or has no enforced nonce: %+v, nonce %v", first.AllowedMentions, first.EnforceNonce)
	}

	e.jma.serve(disaster.QuakeListPath, "quake_02_detail.json")
	run(t, d)
	run(t, d) // the list unchanged: nothing to do
	msgs = e.messages()
	if len(msgs) != 1 || msgs[0].ID != first.ID || msgs[0].Edits != 1 {
		t.Fatalf("after the 震源・震度情報: %d messages, edits %d; want the first, edited once", len(msgs), msgs[len(msgs)-1].Edits)
	}
	for _, want := range []string{"石川県能登地方（深さ約10km）", "M5.6", "輪島市", "震源・震度情報　1月10日 9時05分発表"} {
		if !strings.Contains(msgs[0].Content, want) {
			t.Errorf("edited post lacks %q:\n%s", want, msgs[0].Content)
		}
	}
	// The 震度2 earthquake in the same lists was stored, not posted.
	ev, err := db.GetDisasterEvent(context.Background(), e.pool, db.DisasterQuake, "20260110084510")
	if err != nil || ev.Posted() || !strings.Contains(ev.Title, "最大震度2") {
		t.Fatalf("the small earthquake: %+v, %v", ev, err)
	}
}

func TestQuakeBelowThresholdOrOutsideAreasIsNotPosted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		min   disaster.Intensity
		areas []string
		posts int
	}{
		{"below QUAKE_MIN_INTENSITY", 7, nil, 0},         // 6弱 wanted, 5強 felt
		{"outside QUAKE_AREAS", 0, []string{"13"}, 0},    // 震度1 in Tokyo
		{"inside QUAKE_AREAS", 4, []string{"16"}, 1},     // 震度4 in Toyama
		{"5+ reaches 5-", 5, nil, 1},                     // 5強 ≥ 5弱
		{"areas not shaken", 0, []string{"47", "01"}, 0}, // Okinawa, Hokkaido
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newDisasterEnv(t)
			e.jma.serve(disaster.QuakeListPath, "quake_02_detail.json")
			run(t, e.poller(func(o *DisasterOptions) { o.MinIntensity, o.Areas = tc.min, tc.areas }))
			if got := len(e.messages()); got != tc.posts {
				t.Fatalf("%d posts, want %d", got, tc.posts)
			}
		})
	}
}

func TestQuakeTwoProcessesPostOnce(t *testing.T) {
	e := newDisasterEnv(t)
	e.jma.serve(disaster.QuakeListPath, "quake_02_detail.json")
	a, b := e.poller(nil), e.poller(nil)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, d := range []*Disaster{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- d.Run(context.Background(), time.Time{})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if msgs := e.messages(); len(msgs) != 1 || msgs[0].Edits != 0 {
		t.Fatalf("two processes: %d messages (%+v), want 1 unedited", len(msgs), msgs)
	}
	if n := len(e.discord.posts(disasterChannel)); n != 1 {
		t.Fatalf("%d create calls, want 1", n)
	}
}

func TestQuakeRestartDoesNotRepost(t *testing.T) {
	e := newDisasterEnv(t)
	e.jma.serve(disaster.QuakeListPath, "quake_02_detail.json")
	run(t, e.poller(nil))
	e.clock.set("2026-01-10 09:08")
	run(t, e.poller(nil)) // a new process: no ETag, reads the list whole
	msgs := e.messages()
	if len(msgs) != 1 || msgs[0].Edits != 0 {
		t.Fatalf("after a restart: %d messages, edits %d; want the one, unedited", len(msgs), msgs[0].Edits)
	}
}

func TestQuakeOldReportAtStartIsNotPosted(t *testing.T) {
	e := newDisasterEnv(t)
	e.clock.set("2026-01-10 09:36") // the last report was at 09:05
	e.jma.serve(disaster.QuakeListPath, "quake_02_detail.json")
	run(t, e.poller(nil))
	if msgs := e.messages(); len(msgs) != 0 {
		t.Fatalf("a 31-minute-old report was posted: %+v", msgs)
	}
}

func TestQuakeMentionFromThreshold(t *testing.T) {
	e := newDisasterEnv(t)
	e.jma.serve(disaster.QuakeListPath, "quake_02_detail.json")
	run(t, e.poller(func(o *DisasterOptions) { o.MentionRole, o.MentionFrom = "4242", 6 }))
	msgs := e.messages()
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Content, "<@&4242> ") || len(msgs[0].AllowedMentions.Roles) != 1 ||
		len(msgs[0].AllowedMentions.Parse) != 0 {
		t.Fatalf("mention: %+v", msgs)
	}
}

func TestQuakeMalformedEntriesSkippedAndLoggedOnce(t *testing.T) {
	e := newDisasterEnv(t)
	e.jma.serve(disaster.QuakeListPath, "quake_list.json")
	d := e.poller(nil)
	run(t, d)
	e.jma.serve(disaster.QuakeListPath, "quake_02_detail.json")
	run(t, d)
	e.jma.serve(disaster.QuakeListPath, "quake_list.json")
	run(t, d)
	if msgs := e.messages(); len(msgs) != 1 {
		t.Fatalf("%d posts, want the 5強 alone", len(msgs))
	}
	logs := e.logs.String()
	for _, entry := range []string{"bad_maxi.json", "bad_rdt.json", "bad_eid.json"} {
		if n := strings.Count(logs, "entry="+entry); n != 1 {
			t.Errorf("%s logged %d times, want once:\n%s", entry, n, logs)
		}
	}
}

func TestDisasterJMAUnreachableBacksOff(t *testing.T) {
	e := newDisasterEnv(t)
	e.jma.serve(disaster.QuakeListPath, "quake_02_detail.json")
	e.jma.down.Store(true)
	d := e.poller(func(o *DisasterOptions) { o.Poll = time.Second })
	run(t, d)
	hits := e.jma.hits.Load()
	e.clock.set("2026-01-10 09:06") // the same instant: still backing off
	run(t, d)
	if e.jma.hits.Load() != hits {
		t.Fatalf("JMA asked again during the backoff (%d → %d requests)", hits, e.jma.hits.Load())
	}
	polls, err := d.Status(context.Background())
	if err != nil || len(polls) != 2 || !polls[0].Failing() || !polls[1].Failing() {
		t.Fatalf("status %+v, %v; want quake and tsunami failing", polls, err)
	}
	if err := d.Unreachable(context.Background()); err == nil || !strings.Contains(err.Error(), "JMA unreachable (") {
		t.Errorf("Unreachable = %v, want both lists named", err)
	}
	if n := strings.Count(e.logs.String(), "JMA list unreadable"); n != 2 {
		t.Fatalf("%d warnings, want one per list:\n%s", n, e.logs.String())
	}

	e.jma.down.Store(false)
	e.clock.set("2026-01-10 09:07")
	run(t, d)
	if len(e.messages()) != 1 {
		t.Fatal("not posted once JMA answered again")
	}
	polls, _ = d.Status(context.Background())
	if polls[0].Failing() {
		t.Fatalf("still failing: %+v", polls[0])
	}
	if err := d.Unreachable(context.Background()); err != nil && strings.Contains(err.Error(), "quake") {
		t.Errorf("Unreachable = %v after the quake list read again", err)
	}
	if !strings.Contains(e.logs.String(), "JMA list readable again") {
		t.Fatal("recovery not logged")
	}
}

func TestTsunamiWarningThenCancelled(t *testing.T) {
	e := newDisasterEnv(t)
	e.discord.AddWebhook("901", "tsunami-token", "556")
	e.opts.Dest = DisasterDest{WebhookURL: e.discord.URL() + "api/v10/webhooks/901/tsunami-token"}
	e.clock.set("2026-01-10 09:09")
	e.jma.serve(disaster.TsunamiListPath, "tsunami_list_warning.json")
	e.jma.serve("tsunami/data/20260110090800_0_VTSE41_270000.json", "tsunami_VTSE41_warning.json")
	e.jma.serve("tsunami/data/20260110100000_0_VTSE41_270000.json", "tsunami_VTSE41_cleared.json")
	d := e.poller(func(o *DisasterOptions) { o.Areas = []string{"17"} })
	run(t, d)
	msgs := e.discord.Messages("556")
	if len(msgs) != 1 || !strings.Contains(msgs[0].Content, "**津波警報**") || !strings.Contains(msgs[0].Content, "【津波警報】石川県能登") {
		t.Fatalf("tsunami warning: %+v", msgs)
	}
	e.clock.set("2026-01-10 10:01")
	e.jma.serve(disaster.TsunamiListPath, "tsunami_list_cleared.json")
	run(t, d)
	msgs = e.discord.Messages("556")
	if len(msgs) != 1 || msgs[0].Edits != 1 || !strings.Contains(msgs[0].Content, "解除されました") {
		t.Fatalf("after 解除: %+v", msgs)
	}
	ev, err := db.GetDisasterEvent(context.Background(), e.pool, db.DisasterTsunami, "20260110090012")
	if err != nil || ev.Active {
		t.Fatalf("event still active: %+v, %v", ev, err)
	}
}

func TestTsunamiOutsideAreasNotPosted(t *testing.T) {
	e := newDisasterEnv(t)
	e.clock.set("2026-01-10 09:09")
	e.jma.serve(disaster.TsunamiListPath, "tsunami_list_warning.json")
	e.jma.serve("tsunami/data/20260110090800_0_VTSE41_270000.json", "tsunami_VTSE41_warning.json")
	run(t, e.poller(func(o *DisasterOptions) { o.Areas = []string{"13"} }))
	if msgs := e.messages(); len(msgs) != 0 {
		t.Fatalf("posted for Tokyo: %+v", msgs)
	}
}

func TestWeatherWarningThenCancelled(t *testing.T) {
	for _, tc := range []struct {
		name       string
		advisories bool
		posts      []string
	}{
		{"warnings only", false, []string{"大雨警報"}},
		{"with advisories", true, []string{"大雨警報", "雷注意報", "強風注意報"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newDisasterEnv(t)
			e.clock.set("2026-07-01 10:20")
			path := disaster.WarningPath("130000")
			e.jma.serve(path, "warning_130000_issued.json")
			d := e.poller(func(o *DisasterOptions) { o.Office, o.IncludeAdvisories = "130000", tc.advisories })
			run(t, d)
			run(t, e.poller(func(o *DisasterOptions) { o.Office, o.IncludeAdvisories = "130000", tc.advisories })) // another process
			msgs := e.messages()
			if len(msgs) != len(tc.posts) {
				t.Fatalf("%d posts, want %v: %+v", len(msgs), tc.posts, msgs)
			}
			for i, want := range tc.posts {
				if !strings.Contains(msgs[i].Content, "**"+want+"**（東京都）") {
					t.Errorf("post %d is not %s:\n%s", i, want, msgs[i].Content)
				}
			}
			if !strings.Contains(msgs[0].Content, "対象：東京地方") {
				t.Errorf("no area named:\n%s", msgs[0].Content)
			}

			e.clock.set("2026-07-01 16:45")
			e.jma.serve(path, "warning_130000_cleared.json")
			run(t, d)
			msgs = e.messages()
			// 大雨 goes on as an advisory: the warning's message says so.
			if !strings.Contains(msgs[0].Content, "大雨警報は大雨注意報に切り替えられました") || msgs[0].Edits != 1 {
				t.Fatalf("大雨警報 after 解除 (edits %d):\n%s", msgs[0].Edits, msgs[0].Content)
			}
			if tc.advisories {
				// 大雨注意報 follows the warning: a new post; 強風 is lifted, 雷 goes on.
				if len(msgs) != 4 || !strings.Contains(msgs[3].Content, "**大雨注意報**") ||
					!strings.Contains(msgs[2].Content, "強風注意報は解除") || strings.Contains(msgs[1].Content, "雷注意報は解除") {
					t.Fatalf("advisories after 解除: %+v", msgs)
				}
			} else if len(msgs) != 1 {
				t.Fatalf("%d posts after 解除, want 1", len(msgs))
			}
		})
	}
}

// A warning raised to a special warning: the warning's message says it was
// replaced (not lifted) and the special warning is posted as news.
func TestWeatherWarningRaisedToSpecial(t *testing.T) {
	e := newDisasterEnv(t)
	e.clock.set("2026-07-01 10:20")
	path := disaster.WarningPath("130000")
	e.jma.serve(path, "warning_130000_issued.json")
	d := e.poller(func(o *DisasterOptions) { o.Office = "130000" })
	run(t, d)
	e.clock.set("2026-07-01 12:35")
	e.jma.serve(path, "warning_130000_special.json")
	run(t, d)
	msgs := e.messages()
	if len(msgs) != 2 {
		t.Fatalf("%d posts, want the warning and the special warning: %+v", len(msgs), msgs)
	}
	if !strings.Contains(msgs[0].Content, "⬆️ **大雨警報は大雨特別警報に切り替えられました**") || strings.Contains(msgs[0].Content, "解除") {
		t.Errorf("the warning's message after the raise:\n%s", msgs[0].Content)
	}
	if !strings.Contains(msgs[1].Content, "🟪 **大雨特別警報**（東京都）") {
		t.Errorf("the special warning's post:\n%s", msgs[1].Content)
	}
}

// An earthquake is posted once though a post's answer is lost or its
// process dies between the POST and the record: a later poll looks for the
// message in the channel and records it (later reports edit it) instead of
// posting again; where it cannot look, it gives up rather than post twice.
func TestQuakePostedOnceWhenTheOutcomeIsUnknown(t *testing.T) {
	const quakeKey = "20260110090012"
	const hookChannel = "556"
	tests := []struct {
		name    string
		webhook bool
		noBot   bool // a webhook without the bot's session: the channel cannot be read
		prep    func(e *disasterEnv, channel string)
		// crash leaves the row as a process that died after its claim
		// would: posted (the message exists) or not.
		crash  func(t *testing.T, e *disasterEnv, posted bool)
		posted bool
		// wantRecorded: the row ends with the message's id, so later
		// reports edit it.
		wantRecorded bool
		wantLog      string
	}{
		{name: "webhook, 500 after the post", webhook: true,
			prep: func(e *disasterEnv, ch string) { e.discord.LoseCreateResponses(ch, 1, discordtest.LossServerError) }, wantRecorded: true},
		{name: "webhook, no answer in time", webhook: true,
			prep: func(e *disasterEnv, ch string) { e.discord.LoseCreateResponses(ch, 1, discordtest.LossTimeout) }, wantRecorded: true},
		{name: "webhook, unreadable answer", webhook: true,
			prep: func(e *disasterEnv, ch string) { e.discord.LoseCreateResponses(ch, 1, discordtest.LossGarbage) }, wantRecorded: true},
		{name: "bot message, 500 after the post",
			prep: func(e *disasterEnv, ch string) { e.discord.LoseCreateResponses(ch, 1, discordtest.LossServerError) }, wantRecorded: true},
		{name: "webhook, crash after the post", webhook: true, crash: crashAfterClaim, posted: true, wantRecorded: true},
		{name: "webhook, crash before the post", webhook: true, crash: crashAfterClaim, posted: false, wantRecorded: true},
		{name: "webhook only, crash after the post", webhook: true, noBot: true, crash: crashAfterClaim, posted: true,
			wantLog: "disaster post of unknown outcome not posted again"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newDisasterEnv(t)
			channel := disasterChannel
			if tc.webhook {
				channel = hookChannel
				e.discord.AddWebhook("901", "quake-token", hookChannel)
				e.opts.Dest = DisasterDest{WebhookURL: e.discord.URL() + "api/v10/webhooks/901/quake-token", Timeout: 500 * time.Millisecond}
				if !tc.noBot {
					e.opts.Dest.Discord = e.discord.session
				}
			}
			if tc.prep != nil {
				tc.prep(e, channel)
			}
			e.jma.serve(disaster.QuakeListPath, "quake_01_sokuhou.json")
			if tc.crash != nil {
				tc.crash(t, e, tc.posted)
			} else {
				run(t, e.poller(nil))
			}
			// The job runs again, and again once the claim's time is up.
			run(t, e.poller(nil))
			e.clock.set("2026-01-10 09:07")
			run(t, e.poller(nil))
			run(t, e.poller(nil))

			msgs := e.discord.Messages(channel)
			if len(msgs) != 1 {
				t.Fatalf("%d messages in the channel, want 1", len(msgs))
			}
			ev, err := db.GetDisasterEvent(context.Background(), e.pool, db.DisasterQuake, quakeKey)
			if err != nil {
				t.Fatal(err)
			}
			if got := ev.MessageID == msgs[0].ID; got != tc.wantRecorded {
				t.Fatalf("row's message %q, the channel's %q: recorded %v, want %v", ev.MessageID, msgs[0].ID, got, tc.wantRecorded)
			}
			if tc.wantLog != "" && !strings.Contains(e.logs.String(), tc.wantLog) {
				t.Errorf("log lacks %q:\n%s", tc.wantLog, e.logs.String())
			}
			if !tc.wantRecorded {
				return
			}
			// The next report edits the one message.
			e.clock.set("2026-01-10 09:08")
			e.jma.serve(disaster.QuakeListPath, "quake_02_detail.json")
			run(t, e.poller(nil))
			msgs = e.discord.Messages(channel)
			if len(msgs) != 1 || msgs[0].Edits != 1 || !strings.Contains(msgs[0].Content, "M5.6") {
				t.Fatalf("after the next report: %d messages, want the one edited", len(msgs))
			}
		})
	}
}

// crashAfterClaim leaves the earthquake's row as a process leaves it that
// died after claiming the post, before recording it: with the message
// posted (the POST went through) or not.
func crashAfterClaim(t *testing.T, e *disasterEnv, posted bool) {
	t.Helper()
	ctx := context.Background()
	if posted {
		run(t, e.poller(nil))
	}
	_, err := e.pool.Exec(ctx, `INSERT INTO disaster_events (kind, event_key) VALUES ('quake', '20260110090012')
ON CONFLICT (kind, event_key) DO UPDATE SET report = '', title = '', content = '', message_id = '', channel_id = ''`)
	if err == nil {
		_, err = e.pool.Exec(ctx, `UPDATE disaster_events SET post_started_at = $1 WHERE kind = 'quake' AND event_key = '20260110090012'`, e.clock.now())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// An edit is claimed like a post: a claim under way keeps other pollers
// off, and one its process left behind (it died mid-edit) is taken over
// once its time is up, so the later report still shows.
func TestQuakeEditClaimLeftByACrashIsTakenOver(t *testing.T) {
	e := newDisasterEnv(t)
	e.jma.serve(disaster.QuakeListPath, "quake_01_sokuhou.json")
	run(t, e.poller(nil))
	if _, err := e.pool.Exec(context.Background(), `UPDATE disaster_events SET post_started_at = $1
WHERE kind = 'quake' AND event_key = '20260110090012'`, e.clock.now()); err != nil {
		t.Fatal(err)
	}
	e.jma.serve(disaster.QuakeListPath, "quake_02_detail.json")
	run(t, e.poller(nil))
	if msgs := e.messages(); len(msgs) != 1 || msgs[0].Edits != 0 {
		t.Fatalf("with another poller's edit under way: %d messages, edits %d; want the one, unedited", len(msgs), msgs[0].Edits)
	}
	e.clock.set("2026-01-10 09:08")
	d := e.poller(nil)
	run(t, d)
	run(t, d)
	msgs := e.messages()
	if len(msgs) != 1 || msgs[0].Edits != 1 || !strings.Contains(msgs[0].Content, "M5.6") {
		t.Fatalf("after the claim's time: %d messages, edits %d; want the one, edited once", len(msgs), msgs[0].Edits)
	}
	ev, err := db.GetDisasterEvent(context.Background(), e.pool, db.DisasterQuake, "20260110090012")
	if err != nil || ev.PostStartedAt != nil || !strings.Contains(ev.Content, "M5.6") {
		t.Fatalf("row after the edit: claim %v, content recorded %v, err %v", ev.PostStartedAt, strings.Contains(ev.Content, "M5.6"), err)
	}
}

// A post Discord refused made no message: the next poll posts at once,
// without waiting out the claim.
func TestQuakeRefusedPostIsPostedByTheNextPoll(t *testing.T) {
	e := newDisasterEnv(t)
	e.discord.AddWebhook("901", "quake-token", "556")
	base := e.discord.URL() + "api/v10/webhooks/901/"
	e.jma.serve(disaster.QuakeListPath, "quake_01_sokuhou.json")
	run(t, e.poller(func(o *DisasterOptions) { o.Dest = DisasterDest{WebhookURL: base + "wrong-token"} }))
	if msgs := e.discord.Messages("556"); len(msgs) != 0 {
		t.Fatalf("%d messages through a refused webhook", len(msgs))
	}
	run(t, e.poller(func(o *DisasterOptions) { o.Dest = DisasterDest{WebhookURL: base + "quake-token"} }))
	if msgs := e.discord.Messages("556"); len(msgs) != 1 {
		t.Fatalf("%d messages after the webhook was fixed, want 1", len(msgs))
	}
}
