package scheduler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/disaster"
	"github.com/yorozu-bot/yorozu/jma"
)

// JobDisaster polls JMA's disaster lists and posts what is new.
const JobDisaster = "disaster"

// Sources of the disaster poll, as disaster_polls names them.
const (
	SourceQuake   = "quake"
	SourceTsunami = "tsunami"
	SourceWarning = "warning"
)

// maxDisasterBackoff bounds the wait between reads of a list JMA does not
// answer.
const maxDisasterBackoff = 10 * time.Minute

// disasterRetention is how long events are kept after their last report.
const disasterRetention = 30 * 24 * time.Hour

// JMALists is what the poll reads JMA with; *jma.Client satisfies it.
type JMALists interface {
	Changed(ctx context.Context, path string) ([]byte, bool, error)
	Forget(path string)
	Get(ctx context.Context, path string) ([]byte, error)
	AreaNames(ctx context.Context) map[string]string
}

var _ JMALists = (*jma.Client)(nil)

// TxBeginner is a database that opens transactions; *pgxpool.Pool
// satisfies it.
type TxBeginner interface {
	db.Querier
	Begin(ctx context.Context) (pgx.Tx, error)
}

// DisasterDest is where disaster posts go and are edited: the webhook when
// WebhookURL is set, else bot messages in ChannelID.
type DisasterDest struct {
	WebhookURL string       // QUAKE_WEBHOOK_URL; secret
	ChannelID  string       // QUAKE_CHANNEL_ID
	Discord    Discord      // the bot's session, for ChannelID
	HTTPClient *http.Client // executes the webhook; default http.DefaultClient
	Timeout    time.Duration
}

// Enabled reports whether the destination has somewhere to post.
func (d DisasterDest) Enabled() bool {
	return d.WebhookURL != "" || (d.ChannelID != "" && d.Discord != nil)
}

// where names the destination in the rows: the channel, or "webhook".
func (d DisasterDest) where() string {
	if d.WebhookURL != "" {
		return "webhook"
	}
	return d.ChannelID
}

// disasterMessage is the body of a create or an edit.
type disasterMessage struct {
	Content         string                            `json:"content"`
	AllowedMentions *discordgo.MessageAllowedMentions `json:"allowed_mentions"`
	Nonce           string                            `json:"nonce,omitempty"`
	EnforceNonce    bool                              `json:"enforce_nonce,omitempty"`
}

// errMaybePosted marks a failed post whose message may exist all the
// same: the request went out and no answer said it was refused (none came,
// a 5xx, or one without the message).
var errMaybePosted = errors.New("the message may have been posted")

// errNotThere is a look for a message (find) that saw it is not there.
var errNotThere = errors.New("not among the channel's recent messages")

// post creates the message and returns its id. A bot message carries
// nonce, enforced, so that a retry after a lost answer within Discord's
// window shows it once; a webhook takes no nonce. A webhook post waits
// for the message (wait=true), so that its id comes back with it. An error
// wrapping errMaybePosted leaves the outcome unknown; any other says no
// message was made.
func (d DisasterDest) post(ctx context.Context, m disasterMessage) (string, error) {
	ctx, cancel := d.deadline(ctx)
	defer cancel()
	// Whether the request was written decides what a failure means: one
	// that never left cannot have made a message.
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
		if i.Err == nil {
			wrote.Store(true)
		}
	}})
	maybe := func(err error) error {
		if wrote.Load() {
			return fmt.Errorf("%w: %w", errMaybePosted, err)
		}
		return err
	}
	if d.WebhookURL != "" {
		m.Nonce = "" // webhooks take no nonce
		raw, status, err := d.webhook(ctx, http.MethodPost, "", "wait=true", &m)
		switch {
		case err != nil && status != 0 && status < 500:
			return "", err // refused: Discord made nothing
		case err != nil:
			return "", maybe(err)
		}
		id, err := messageID(raw)
		if err != nil {
			return "", maybe(err)
		}
		return id, nil
	}
	m.EnforceNonce = m.Nonce != ""
	endpoint := discordgo.EndpointChannelMessages(d.ChannelID)
	raw, err := d.Discord.RequestWithBucketID(http.MethodPost, endpoint, m, endpoint, discordgo.WithContext(ctx))
	var rerr *discordgo.RESTError
	switch {
	case errors.As(err, &rerr) && rerr.Response != nil && rerr.Response.StatusCode < 500:
		return "", fmt.Errorf("post to channel %s: %w", d.ChannelID, err)
	case err != nil && !errors.Is(err, discordgo.ErrJSONUnmarshal):
		return "", maybe(fmt.Errorf("post to channel %s: %w", d.ChannelID, err))
	}
	id, err := messageID(raw)
	if err != nil {
		return "", maybe(err)
	}
	return id, nil
}

// find looks for a message with content among the destination channel's
// recent messages (the webhook's or the bot's own), posted since about
// since: its id, errNotThere when the messages looked at reach back before
// since without it, or another error when it cannot tell. A webhook alone
// cannot list messages: the webhook's channel is read with the bot's
// session, when the bot runs and may read the channel's history.
func (d DisasterDest) find(ctx context.Context, content string, since time.Time) (string, error) {
	ctx, cancel := d.deadline(ctx)
	defer cancel()
	if d.Discord == nil {
		return "", errors.New("find message: no bot session to read the channel with")
	}
	channel, webhookID := d.ChannelID, ""
	if d.WebhookURL != "" {
		raw, _, err := d.webhook(ctx, http.MethodGet, "", "", nil)
		if err != nil {
			return "", fmt.Errorf("find message: %w", err)
		}
		var wh struct {
			ID        string `json:"id"`
			ChannelID string `json:"channel_id"`
		}
		if err := json.Unmarshal(raw, &wh); err != nil || wh.ChannelID == "" {
			return "", errors.New("find message: the webhook's answer names no channel")
		}
		channel, webhookID = wh.ChannelID, wh.ID
		if u, err := url.Parse(d.WebhookURL); err == nil && u.Query().Get("thread_id") != "" {
			channel = u.Query().Get("thread_id") // the webhook posts into that thread
		}
	}
	const limit = 100
	endpoint := discordgo.EndpointChannelMessages(channel)
	raw, err := d.Discord.RequestWithBucketID(http.MethodGet, fmt.Sprintf("%s?limit=%d", endpoint, limit), nil, endpoint, discordgo.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("find message in channel %s: %w", channel, err)
	}
	var msgs []*discordgo.Message
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return "", fmt.Errorf("find message in channel %s: %w", channel, err)
	}
	want := strings.TrimSpace(content)
	for _, m := range msgs {
		mine := m.WebhookID == webhookID && (webhookID != "" || m.Author != nil && m.Author.Bot)
		if mine && strings.TrimSpace(m.Content) == want {
			return m.ID, nil
		}
	}
	// A minute of slack for clocks that disagree.
	if len(msgs) < limit || msgs[len(msgs)-1].Timestamp.Before(since.Add(-time.Minute)) {
		return "", errNotThere
	}
	return "", fmt.Errorf("find message in channel %s: its last %d messages do not reach back to %s", channel, limit, since.Format(time.RFC3339))
}

// edit replaces the content of message id; it pings no one.
func (d DisasterDest) edit(ctx context.Context, id, content string) error {
	ctx, cancel := d.deadline(ctx)
	defer cancel()
	m := disasterMessage{Content: content, AllowedMentions: noPings()}
	if d.WebhookURL != "" {
		_, _, err := d.webhook(ctx, http.MethodPatch, "/messages/"+id, "", &m)
		return err
	}
	endpoint := discordgo.EndpointChannelMessage(d.ChannelID, id)
	_, err := d.Discord.RequestWithBucketID(http.MethodPatch, endpoint, m, discordgo.EndpointChannelMessages(d.ChannelID), discordgo.WithContext(ctx))
	if err != nil && !errors.Is(err, discordgo.ErrJSONUnmarshal) {
		return fmt.Errorf("edit message %s in channel %s: %w", id, d.ChannelID, err)
	}
	return nil
}

func (d DisasterDest) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	t := d.Timeout
	if t <= 0 {
		t = 15 * time.Second
	}
	return context.WithTimeout(ctx, t)
}

// webhook sends m (nil: no body) to the webhook (see webhook.do).
func (d DisasterDest) webhook(ctx context.Context, method, sub, query string, m *disasterMessage) ([]byte, int, error) {
	var body []byte
	if m != nil {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, 0, fmt.Errorf("webhook: encode: %w", err)
		}
		body = b
	}
	return webhook{url: d.WebhookURL, client: d.HTTPClient}.do(ctx, method, sub, query, "application/json", body)
}

func messageID(raw []byte) (string, error) {
	var m struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.ID == "" {
		return "", fmt.Errorf("post: no message id in the answer (%d bytes)", len(raw))
	}
	return m.ID, nil
}

// DisasterOptions configure the disaster poll. Zero values get the
// documented defaults.
type DisasterOptions struct {
	JMA  JMALists     // required
	DB   TxBeginner   // required
	Dest DisasterDest // where posts go; not Enabled: the job does nothing
	// MinIntensity is the least intensity posted (QUAKE_MIN_INTENSITY);
	// default 震度3.
	MinIntensity disaster.Intensity
	// Areas are the prefectures of interest (QUAKE_AREAS, two-digit
	// codes); empty is all of Japan.
	Areas []string
	// Poll is how often the lists are read (QUAKE_POLL); default 30 s.
	Poll time.Duration
	// MaxAge is how old a report may be and still be posted
	// (QUAKE_MAX_AGE); default 30 min.
	MaxAge time.Duration
	// MentionRole (a role id, or "everyone") is pinged by an earthquake
	// post from MentionFrom (default 震度5弱) up; "" pings no one.
	MentionRole string
	MentionFrom disaster.Intensity
	// Office is WEATHER_AREA_CODE, whose warnings are posted; "" posts none.
	Office string
	// IncludeAdvisories posts 注意報 too (WARNING_INCLUDE_ADVISORIES).
	IncludeAdvisories bool
	Now               func() time.Time // default time.Now
	Logger            *slog.Logger     // default slog.Default()
}

// Disaster is the disaster poll: earthquakes, tsunami and weather warnings
// from JMA, each event one message, posted once across processes and
// edited as later reports come.
type Disaster struct {
	o   DisasterOptions
	log *slog.Logger

	running sync.Mutex // one poll at a time in this process

	mu        sync.Mutex
	sources   map[string]*sourceState
	badSeen   map[string]bool // malformed entries already logged
	lastPrune time.Time
}

// sourceState is how reading one list goes in this process.
type sourceState struct {
	failures int
	next     time.Time // no read before this while failing
}

// NewDisaster returns the disaster poll.
func NewDisaster(o DisasterOptions) *Disaster {
	if o.MinIntensity <= 0 {
		o.MinIntensity = 3
	}
	if o.Poll <= 0 {
		o.Poll = 30 * time.Second
	}
	if o.MaxAge <= 0 {
		o.MaxAge = 30 * time.Minute
	}
	if o.MentionFrom <= 0 {
		o.MentionFrom = disaster.Intensity5Lower
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Disaster{o: o, log: o.Logger.With(slog.String("job", JobDisaster)),
		sources: map[string]*sourceState{}, badSeen: map[string]bool{}}
}

// Register adds the poll to s: every Poll, on one process at a time, and
// runnable by name (`yorozu jobs run disaster`).
func (d *Disaster) Register(s *Scheduler) error {
	return s.AddPeriodic(JobDisaster, "@every "+d.o.Poll.String(), d.Run)
}

// Run reads each list once (a list JMA did not answer waits out its
// backoff) and posts or edits what changed. JMA being away is not an error
// of the run: it is recorded, logged once and retried; a database error is.
func (d *Disaster) Run(ctx context.Context, _ time.Time) error {
	if !d.o.Dest.Enabled() {
		return nil
	}
	if !d.running.TryLock() {
		return nil // the previous poll is still going
	}
	defer d.running.Unlock()
	var errs []error
	for _, s := range []struct {
		name string
		fn   func(ctx context.Context, now time.Time) error
	}{
		{SourceQuake, d.pollQuakes},
		{SourceTsunami, d.pollTsunami},
		{SourceWarning, d.pollWarnings},
	} {
		if s.name == SourceWarning && d.o.Office == "" {
			continue
		}
		now := d.o.Now()
		if !d.due(s.name, now) {
			continue
		}
		err := s.fn(ctx, now)
		if ctx.Err() != nil {
			return errors.Join(err, ctx.Err())
		}
		if err != nil && !errors.Is(err, jma.ErrUnavailable) {
			errs = append(errs, fmt.Errorf("%s: %w", s.name, err))
		}
		if rerr := d.record(ctx, s.name, now, err); rerr != nil {
			errs = append(errs, rerr)
		}
	}
	d.prune(ctx)
	return errors.Join(errs...)
}

// due reports whether source may be read at now (not backing off).
func (d *Disaster) due(source string, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.sources[source]
	return st == nil || !now.Before(st.next)
}

// record notes how reading source went: the backoff, the log line on a
// change of state, and the row every process reads.
func (d *Disaster) record(ctx context.Context, source string, now time.Time, err error) error {
	d.mu.Lock()
	st := d.sources[source]
	if st == nil {
		st = &sourceState{}
		d.sources[source] = st
	}
	was := st.failures
	if err == nil {
		st.failures, st.next = 0, time.Time{}
	} else {
		st.failures++
		wait := min(d.o.Poll<<min(st.failures, 10), maxDisasterBackoff)
		st.next = now.Add(wait)
	}
	failures := st.failures
	d.mu.Unlock()
	switch {
	case err != nil && was == 0:
		d.log.Warn("JMA list unreadable; retrying with backoff", "source", source, "err", err)
	case err != nil:
		d.log.Debug("JMA list still unreadable", "source", source, "failures", failures, "err", err)
	case was > 0:
		d.log.Info("JMA list readable again", "source", source, "failures", was)
	}
	failure := ""
	if err != nil {
		failure = err.Error()
	}
	return db.RecordDisasterPoll(context.WithoutCancel(ctx), d.o.DB, source, now, failure)
}

// badEntries logs each malformed entry once.
func (d *Disaster) badEntries(source string, bad []disaster.BadEntry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.badSeen) > 10000 {
		clear(d.badSeen)
	}
	for _, b := range bad {
		key := source + "/" + b.Key
		if d.badSeen[key] {
			continue
		}
		d.badSeen[key] = true
		d.log.Warn("JMA list entry skipped: it does not read", "source", source, "entry", b.Key, "err", b.Err)
	}
}

// prune deletes old events once a day.
func (d *Disaster) prune(ctx context.Context) {
	now := d.o.Now()
	d.mu.Lock()
	due := now.Sub(d.lastPrune) > 24*time.Hour
	if due {
		d.lastPrune = now
	}
	d.mu.Unlock()
	if !due {
		return
	}
	if n, err := db.PruneDisasterEvents(ctx, d.o.DB, now.Add(-disasterRetention)); err != nil {
		d.log.Warn("prune disaster events", "err", err)
	} else if n > 0 {
		d.log.Info("old disaster events pruned", "deleted", n)
	}
}

// fresh reports whether a report at t may still be posted.
func (d *Disaster) fresh(t, now time.Time) bool { return now.Sub(t) <= d.o.MaxAge }

// read fetches a list when it changed; nil body: unchanged.
func (d *Disaster) read(ctx context.Context, path string, parse func([]byte) error) error {
	body, changed, err := d.o.JMA.Changed(ctx, path)
	if err != nil || !changed {
		return err
	}
	if err := parse(body); err != nil {
		d.o.JMA.Forget(path) // read it whole next time
		return fmt.Errorf("%w: %w", jma.ErrUnavailable, err)
	}
	return nil
}

func (d *Disaster) pollQuakes(ctx context.Context, now time.Time) error {
	var quakes []disaster.Quake
	err := d.read(ctx, disaster.QuakeListPath, func(body []byte) error {
		reports, bad, err := disaster.ParseQuakeList(body)
		d.badEntries(SourceQuake, bad)
		quakes = disaster.Quakes(reports)
		return err
	})
	if err != nil {
		return err
	}
	var names map[string]string
	for _, q := range quakes {
		if !d.fresh(q.Latest.ReportedAt, now) {
			continue
		}
		if names == nil {
			names = d.o.JMA.AreaNames(ctx)
		}
		p := disaster.QuakePost(q, d.o.Areas, names)
		m := q.MaxIn(d.o.Areas)
		mention := ""
		if d.o.MentionRole != "" && m >= d.o.MentionFrom && !q.Cancelled {
			mention = d.o.MentionRole
		}
		occurred := q.OccurredAt
		err := d.apply(ctx, event{
			kind: db.DisasterQuake, key: q.EventID, report: q.Latest.ID, reportedAt: q.Latest.ReportedAt, occurredAt: occurred,
			post: p, severity: int(m), active: !q.Cancelled,
			qualifies: m >= d.o.MinIntensity && !q.Cancelled && d.fresh(q.Latest.ReportedAt, now),
			mention:   mention,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *Disaster) pollTsunami(ctx context.Context, now time.Time) error {
	var latest []disaster.TsunamiEntry
	err := d.read(ctx, disaster.TsunamiListPath, func(body []byte) error {
		entries, bad, err := disaster.ParseTsunamiList(body)
		d.badEntries(SourceTsunami, bad)
		seen := map[string]bool{}
		slices.SortStableFunc(entries, func(a, b disaster.TsunamiEntry) int { return b.ReportedAt.Compare(a.ReportedAt) })
		for _, e := range entries {
			if e.Title != disaster.TsunamiForecastTitle || seen[e.EventID] || !d.fresh(e.ReportedAt, now) {
				continue
			}
			seen[e.EventID] = true
			latest = append(latest, e)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, e := range latest {
		row, err := db.GetDisasterEvent(ctx, d.o.DB, db.DisasterTsunami, e.EventID)
		if err == nil && row.Report == e.ID {
			continue // already at this report: no need for its file
		}
		if err != nil && !errors.Is(err, db.ErrNotFound) {
			return err
		}
		r, err := d.tsunamiReport(ctx, e)
		if err != nil {
			if !errors.Is(err, jma.ErrUnavailable) {
				d.badEntries(SourceTsunami, []disaster.BadEntry{{Key: e.ID, Err: err}})
				continue
			}
			d.o.JMA.Forget(disaster.TsunamiListPath) // look at this entry again next time
			return err
		}
		level := r.Level()
		if !r.Relevant(d.o.Areas) {
			level = disaster.TsunamiNone
		}
		if err := d.apply(ctx, event{
			kind: db.DisasterTsunami, key: e.EventID, report: e.ID, reportedAt: e.ReportedAt,
			post: disaster.TsunamiPost(r, d.o.Areas), severity: level, active: level > disaster.TsunamiNone,
			qualifies: level > disaster.TsunamiNone && e.InfoType != "取消",
		}); err != nil {
			return err
		}
	}
	return nil
}

func (d *Disaster) pollWarnings(ctx context.Context, now time.Time) error {
	var w disaster.Warnings
	parsed := false
	err := d.read(ctx, disaster.WarningPath(d.o.Office), func(body []byte) error {
		var err error
		w, err = disaster.ParseWarnings(d.o.Office, body)
		parsed = err == nil
		return err
	})
	if err != nil || !parsed {
		return err
	}
	names := d.o.JMA.AreaNames(ctx)
	report := w.ReportedAt.UTC().Format(time.RFC3339)
	active := map[string]bool{}
	for _, code := range w.Codes() {
		if _, level, _ := disaster.WarningName(code); level >= disaster.LevelWarning || d.o.IncludeAdvisories {
			active[code] = true
		}
	}
	prefix := d.o.Office + "/"
	open, err := db.ActiveDisasterEvents(ctx, d.o.DB, db.DisasterWarning, prefix)
	if err != nil {
		return err
	}
	for _, row := range open {
		code, _, _ := strings.Cut(strings.TrimPrefix(row.Key, prefix), "/")
		_, level, _ := disaster.WarningName(code)
		still := active[code]
		delete(active, code) // it has its message
		if err := d.apply(ctx, event{
			kind: db.DisasterWarning, key: row.Key, report: report, reportedAt: w.ReportedAt, occurredAt: derefTime(row.OccurredAt),
			post: disaster.WarningPost(w, code, !still, names), severity: level, active: still,
		}); err != nil {
			return err
		}
	}
	if !d.fresh(w.ReportedAt, now) {
		return nil // warnings in force long before: not news
	}
	for _, code := range w.Codes() {
		if !active[code] {
			continue
		}
		_, level, _ := disaster.WarningName(code)
		if err := d.apply(ctx, event{
			kind: db.DisasterWarning, key: prefix + code + "/" + report, report: report, reportedAt: w.ReportedAt, occurredAt: w.ReportedAt,
			post: disaster.WarningPost(w, code, false, names), severity: level, active: true, qualifies: true,
		}); err != nil {
			return err
		}
	}
	return nil
}

func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// event is one event as the latest report has it.
type event struct {
	kind, key, report      string
	reportedAt, occurredAt time.Time
	post                   disaster.Post
	severity               int
	active                 bool
	qualifies              bool   // posted when it has no message yet
	mention                string // role id or "everyone" to ping on the first post
}

// apply brings the event's row and message to the report, once across
// processes: the row is locked while it is read and decided on, so a
// second poller waits and then finds the report applied, or its write
// claimed (postEvent, editEvent). No lock is held across a Discord call.
func (d *Disaster) apply(ctx context.Context, ev event) error {
	tx, err := d.o.DB.Begin(ctx)
	if err != nil {
		return fmt.Errorf("%s event %s: %w", ev.kind, ev.key, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	row, err := db.LockDisasterEvent(ctx, tx, ev.kind, ev.key)
	if err != nil {
		return err
	}
	if row.Report == ev.report && (row.Posted() || !ev.qualifies || row.PostStartedAt != nil) {
		return nil // applied, or its post given up (postEvent)
	}
	log := d.log.With("kind", ev.kind, "event", ev.key, "report", ev.report)
	saved := row
	saved.Report, saved.Title, saved.Content, saved.Severity, saved.Active = ev.report, ev.post.Title, ev.post.Content, ev.severity, ev.active
	saved.ReportedAt, saved.OccurredAt = &ev.reportedAt, &ev.occurredAt
	switch {
	case row.Posted() && mentionText(row.Content, ev.post.Content) != row.Content:
		saved.Content = mentionText(row.Content, ev.post.Content)
		return d.editEvent(ctx, tx, row, saved, ev, log)
	case !row.Posted() && ev.qualifies:
		return d.postEvent(ctx, tx, row, saved, ev, log)
	default:
		if row.Posted() {
			saved.Content = row.Content
		}
	}
	if err := db.SaveDisasterEvent(ctx, tx, saved); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// nonceWindow is how long after a bot message's first try a retry with
// the same nonce is surely made one message by Discord, which remembers
// an enforced nonce for "the past few minutes".
const nonceWindow = 2 * time.Minute

// claimTTL is how long a post's claim keeps other pollers off: the post's
// deadline and some. A claim older than that without a message id is a
// post whose outcome is unknown.
func (d *Disaster) claimTTL() time.Duration {
	t := d.o.Dest.Timeout
	if t <= 0 {
		t = 15 * time.Second
	}
	return t + 30*time.Second
}

// postEvent posts the event's first message (row is its locked row, saved
// the row as the report has it), and commits tx before the POST, so that
// no row lock is held across a network call. What holds:
//
//   - The claim (post_started_at) is committed before the POST; a poller
//     that finds a claim younger than claimTTL leaves the event to its
//     owner. The message id is recorded with the report in one statement
//     as soon as the POST answers: a webhook is executed with wait=true,
//     which returns the message.
//   - A POST that surely made no message (refused with a 4xx, or never
//     sent) drops the claim, and the next poll posts again.
//   - A claim found older than claimTTL without a message id is a post of
//     unknown outcome: its answer was lost, or its process died before the
//     record. The poller takes the claim over and looks for the message
//     among the destination channel's last 100 messages (find; for a
//     webhook, in the webhook's channel, read with the bot's session).
//     Found, it is recorded and not posted again; seen not to be there, it
//     is posted. A bot message is also posted again within nonceWindow of
//     the first try, with the same nonce, which Discord makes one message.
//   - Otherwise (a webhook without a bot that may read its channel, or
//     Discord not answering the look) the event is given up with a
//     warning: at most once. An earthquake shown twice, ping and all, is
//     the worse mistake, and a request that went out most likely arrived.
func (d *Disaster) postEvent(ctx context.Context, tx pgx.Tx, row, saved db.DisasterEvent, ev event, log *slog.Logger) error {
	now := d.o.Now().UTC().Truncate(time.Microsecond) // as Postgres keeps it
	prev := row.PostStartedAt
	if prev != nil && now.Sub(*prev) < d.claimTTL() {
		// Another poller is posting it, or was a moment ago: its record
		// comes, or the next poll looks again.
		d.o.JMA.Forget(sourcePath(ev.kind, d.o.Office))
		return tx.Commit(ctx)
	}
	claimed, err := db.ClaimDisasterPost(ctx, tx, ev.kind, ev.key, now, prev)
	if err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%s event %s: claim the post: %w", ev.kind, ev.key, err)
	}
	if !claimed {
		return nil // the locked row said otherwise; cannot happen
	}
	content, mentions := ev.post.Content, noPings()
	switch ev.mention {
	case "":
	case "everyone":
		content, mentions = "@everyone "+content, &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{discordgo.AllowedMentionTypeEveryone}}
	default:
		content, mentions = "<@&"+ev.mention+"> "+content, &discordgo.MessageAllowedMentions{Roles: []string{ev.mention}}
	}
	saved.ChannelID, saved.Content = d.o.Dest.where(), content
	if prev != nil {
		id, err := d.o.Dest.find(ctx, content, *prev)
		switch {
		case err == nil:
			log.Info("disaster post of unknown outcome found; recorded, not posted again", "message_id", id, "started_at", *prev)
			return d.recordPost(ctx, saved, id, now, log)
		case errors.Is(err, errNotThere):
			log.Info("disaster post of unknown outcome is not in the channel; posting it", "started_at", *prev)
		case d.o.Dest.WebhookURL == "" && now.Sub(*prev) < nonceWindow:
			log.Info("disaster post of unknown outcome posted again with its nonce", "started_at", *prev, "err", err)
		default:
			log.Warn("disaster post of unknown outcome not posted again: it may be in the channel already and cannot be looked for",
				"started_at", *prev, "err", err)
			saved.ChannelID, saved.Content = row.ChannelID, ev.post.Content
			// The claim stays: this report is not tried again.
			return db.SaveDisasterEvent(context.WithoutCancel(ctx), d.o.DB, saved)
		}
	}
	id, err := d.o.Dest.post(ctx, disasterMessage{Content: content, AllowedMentions: mentions, Nonce: disasterNonce(ev.kind, ev.key)})
	if err != nil {
		d.o.JMA.Forget(sourcePath(ev.kind, d.o.Office))
		if errors.Is(err, errMaybePosted) {
			log.Warn("disaster post's outcome unknown; a later poll looks for it before posting again", "err", err)
			return nil
		}
		log.Warn("disaster post failed; the next poll tries again", "err", err)
		return db.ReleaseDisasterPost(context.WithoutCancel(ctx), d.o.DB, ev.kind, ev.key, now)
	}
	log.Info("disaster posted", "message_id", id, "title", ev.post.Title)
	return d.recordPost(ctx, saved, id, now, log)
}

// editEvent edits the event's message to saved's text (row is its locked
// row) under the same claim as a post: taken and committed before the
// PATCH, so that no row lock is held across it and a poller with an older
// report cannot edit in between. A claim its process left behind (it died
// mid-edit) is taken over once claimTTL is up: an edit is safe to repeat.
func (d *Disaster) editEvent(ctx context.Context, tx pgx.Tx, row, saved db.DisasterEvent, ev event, log *slog.Logger) error {
	now := d.o.Now().UTC().Truncate(time.Microsecond)
	if prev := row.PostStartedAt; prev != nil && now.Sub(*prev) < d.claimTTL() {
		d.o.JMA.Forget(sourcePath(ev.kind, d.o.Office)) // look again next poll
		return tx.Commit(ctx)
	}
	claimed, err := db.ClaimDisasterPost(ctx, tx, ev.kind, ev.key, now, row.PostStartedAt)
	if err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%s event %s: claim the edit: %w", ev.kind, ev.key, err)
	}
	if !claimed {
		return nil // the locked row said otherwise; cannot happen
	}
	if err := d.o.Dest.edit(ctx, row.MessageID, saved.Content); err != nil {
		// Discord is away or refuses: the list is read whole next time
		// and the edit tried again; the row keeps the text shown.
		log.Warn("disaster post not edited; the next poll tries again", "message_id", row.MessageID, "err", err)
		d.o.JMA.Forget(sourcePath(ev.kind, d.o.Office))
		return db.ReleaseDisasterPost(context.WithoutCancel(ctx), d.o.DB, ev.kind, ev.key, now)
	}
	log.Info("disaster post edited", "message_id", row.MessageID)
	return d.recordPost(ctx, saved, row.MessageID, now, log)
}

// recordPost records message id of saved's event, posted or edited under
// the claim at. It is written even when ctx is done: the message is.
func (d *Disaster) recordPost(ctx context.Context, saved db.DisasterEvent, id string, at time.Time, log *slog.Logger) error {
	saved.MessageID = id
	err := db.RecordDisasterPost(context.WithoutCancel(ctx), d.o.DB, saved, at)
	if errors.Is(err, db.ErrNotFound) {
		// Another poller took the claim over: only a write slower than
		// claimTTL gets here. After a post the event may show twice.
		log.Error("disaster post's claim taken over by another poller meanwhile; the event may show twice", "message_id", id)
		return nil
	}
	return err
}

// mentionText keeps the ping a message started with when its text is
// replaced (an edit pings no one again).
func mentionText(old, content string) string {
	if strings.HasPrefix(old, "@everyone ") {
		return "@everyone " + content
	}
	if strings.HasPrefix(old, "<@&") {
		if i := strings.Index(old, "> "); i > 0 {
			return old[:i+2] + content
		}
	}
	return content
}

func sourcePath(kind, office string) string {
	switch kind {
	case db.DisasterQuake:
		return disaster.QuakeListPath
	case db.DisasterTsunami:
		return disaster.TsunamiListPath
	}
	return disaster.WarningPath(office)
}

// disasterNonce is the event's nonce: the same in every process, so two
// posts of it within Discord's window are one message.
func disasterNonce(kind, key string) string {
	sum := sha256.Sum256([]byte(kind + "/" + key))
	return hex.EncodeToString(sum[:10])
}

// tsunamiReport fetches and reads the detail file of e.
func (d *Disaster) tsunamiReport(ctx context.Context, e disaster.TsunamiEntry) (disaster.TsunamiReport, error) {
	body, err := d.o.JMA.Get(ctx, disaster.TsunamiReportPath(e))
	if err != nil {
		return disaster.TsunamiReport{}, err
	}
	return disaster.ParseTsunamiReport(e, body)
}

// Status is how the last reads of each list went, from any process.
func (d *Disaster) Status(ctx context.Context) ([]db.DisasterPoll, error) {
	return db.DisasterPolls(ctx, d.o.DB)
}

// Unreachable says which lists did not read last time (any process), for
// /readyz; nil when every one did.
func (d *Disaster) Unreachable(ctx context.Context) error {
	polls, err := d.Status(ctx)
	if err != nil {
		return err
	}
	var failing []string
	for _, p := range polls {
		if p.Failing() {
			failing = append(failing, p.Source+": "+p.Error)
		}
	}
	if len(failing) > 0 {
		return errors.New("JMA unreachable (" + strings.Join(failing, "; ") + ")")
	}
	return nil
}
