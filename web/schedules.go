package web

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/recur"
)

// Schedules makes reminders and scheduled posts from the 予定 form and sends
// them once as a test; *scheduler.Reminders satisfies it.
type Schedules interface {
	Create(ctx context.Context, p db.ReminderParams) (db.Reminder, error)
	Repeat(ctx context.Context, p db.ReminderParams, rule recur.Rule, loc *time.Location) (db.Reminder, error)
	// Edit changes anyone's pending reminder; rule nil with p.RRule set
	// keeps its timing as p gives it.
	Edit(ctx context.Context, id int64, p db.ReminderParams, rule *recur.Rule, loc *time.Location) (db.Reminder, error)
	// SendTest posts reminder id once, now, marked as a test, leaving its
	// schedule as it is; it returns the message's id.
	SendTest(ctx context.Context, id int64) (string, error)
	Location() *time.Location
	MaxAhead() time.Duration
}

// AdminUser is the user id of the reminders and posts made on the admin
// page: nobody is pinged for them.
const AdminUser = "admin"

// testSendTimeout bounds a test send: a scheduled post is written by the
// model first.
const testSendTimeout = 5 * time.Minute

// scheduleRequest is the 予定 form: what, where and when in words.
type scheduleRequest struct {
	Kind      string `json:"kind"` // db.KindRemind (default), db.KindPost or db.KindDigest
	GuildID   string `json:"guild_id"`
	ChannelID string `json:"channel_id"`
	// UserID is the member a reminder pings; "" for nobody (AdminUser).
	UserID  string `json:"user_id"`
	Content string `json:"content"`
	When    string `json:"when"`
}

// previewJSON is when's reading: the rule in words, or the one time, and
// the next occurrences.
type previewJSON struct {
	Repeats  bool        `json:"repeats"`
	Rule     string      `json:"rule,omitempty"`
	Note     string      `json:"note,omitempty"`
	TimeZone string      `json:"time_zone"`
	Next     []time.Time `json:"next"`
}

// readWhen reads when as /remind add does, in the scheduler's zone; a
// refusal is answered (400 on the field "when") and ok is false.
func (s *Server) readWhen(w http.ResponseWriter, when string) (commands.When, previewJSON, bool) {
	sch := s.opts.Deps.Schedules
	loc := sch.Location()
	if strings.TrimSpace(when) == "" {
		writeFieldError(w, "when", "いつ知らせるかを入力してください（例: 毎週月曜 9時、明日の18時）")
		return commands.When{}, previewJSON{}, false
	}
	now := s.opts.Now().In(loc)
	rd, err := commands.ReadWhen(when, now, loc, sch.MaxAhead())
	if err != nil {
		writeFieldError(w, "when", plainTimes(err.Error(), loc))
		return commands.When{}, previewJSON{}, false
	}
	p := previewJSON{TimeZone: loc.String(), Note: strings.TrimSpace(rd.Note)}
	if rd.Rule == nil {
		p.Next = []time.Time{rd.At}
		return rd, p, true
	}
	rule := rd.Rule.Anchor(now, loc)
	p.Repeats, p.Rule, p.Next = true, rule.Describe(), rule.Next(now, loc, upcomingShown)
	return rd, p, true
}

// discordTime is a Discord timestamp (<t:1700000000:F>) in a sentence
// written for Discord.
var discordTime = regexp.MustCompile(`<t:(\d+):[a-zA-Z]>`)

// plainTimes writes the Discord timestamps in text as times in loc.
func plainTimes(text string, loc *time.Location) string {
	text = strings.ReplaceAll(text, "`", "")
	return discordTime.ReplaceAllStringFunc(text, func(m string) string {
		sec, err := strconv.ParseInt(discordTime.FindStringSubmatch(m)[1], 10, 64)
		if err != nil {
			return m
		}
		return time.Unix(sec, 0).In(loc).Format("2006/01/02 15:04")
	})
}

// handlePreviewSchedule reads the form's when as it is typed:
// POST /api/reminders/preview {"when": …}. Words it cannot read are 400 on
// "when", saying why, as /remind add would.
func (s *Server) handlePreviewSchedule(w http.ResponseWriter, r *http.Request) {
	var req scheduleRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	if _, p, ok := s.readWhen(w, req.When); ok {
		writeJSON(w, http.StatusOK, p)
	}
}

// scheduleParams checks the form's what and where and makes the row's
// params of them; a refusal is answered (400 naming the field).
func (s *Server) scheduleParams(w http.ResponseWriter, req scheduleRequest) (db.ReminderParams, bool) {
	kind := req.Kind
	if kind == "" {
		kind = db.KindRemind
	}
	content := strings.TrimSpace(req.Content)
	switch {
	case kind != db.KindRemind && !db.PostKind(kind):
		writeFieldError(w, "kind", "リマインダー・定期投稿・話題のまとめのどれかを選んでください")
		return db.ReminderParams{}, false
	case req.GuildID == "" || req.ChannelID == "":
		writeFieldError(w, "channel_id", "送り先のチャンネルを選んでください")
		return db.ReminderParams{}, false
	case content == "":
		writeFieldError(w, "content", "内容を入力してください")
		return db.ReminderParams{}, false
	case utf8.RuneCountInString(content) > maxScheduleRunes:
		writeFieldError(w, "content", strconv.Itoa(maxScheduleRunes)+" 文字までにしてください")
		return db.ReminderParams{}, false
	}
	user := req.UserID
	if user == "" || db.PostKind(kind) {
		user = AdminUser
	}
	return db.ReminderParams{SessionKey: "discord:channel:" + req.ChannelID, GuildID: req.GuildID, ChannelID: req.ChannelID,
		UserID: user, Content: content, Kind: kind, TimeZone: s.opts.Deps.Schedules.Location().String()}, true
}

// handleCreateSchedule stores the form's reminder or scheduled post:
// POST /api/reminders. Each field it refuses is 400 naming it.
func (s *Server) handleCreateSchedule(w http.ResponseWriter, r *http.Request) {
	var req scheduleRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	p, ok := s.scheduleParams(w, req)
	if !ok {
		return
	}
	rd, _, ok := s.readWhen(w, req.When)
	if !ok {
		return
	}
	sch := s.opts.Deps.Schedules
	var rem db.Reminder
	var err error
	if rd.Rule != nil {
		rem, err = sch.Repeat(r.Context(), p, *rd.Rule, sch.Location())
	} else {
		p.DueAt = rd.At
		rem, err = sch.Create(r.Context(), p)
	}
	if err != nil {
		s.scheduleRefused(w, req, err)
		return
	}
	w.WriteHeader(http.StatusCreated)
	s.writeReminder(w, r, rem)
}

// handleEditSchedule changes a pending reminder or scheduled post as the
// form says: PUT /api/reminders/{id}. An empty when keeps its timing.
func (s *Server) handleEditSchedule(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	var req scheduleRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	rem, err := db.ReminderByID(r.Context(), s.opts.Pool, id)
	switch {
	case errors.Is(err, db.ErrNotFound):
		writeError(w, http.StatusNotFound, "その予定はありません。")
		return
	case err != nil:
		s.internalError(w, r, err)
		return
	case !rem.Pending():
		writeError(w, http.StatusConflict, scheduleOver)
		return
	}
	p, ok := s.scheduleParams(w, req)
	if !ok {
		return
	}
	var rule *recur.Rule
	if strings.TrimSpace(req.When) == "" {
		p.DueAt, p.RRule, p.TimeZone, p.SkipHolidays = rem.DueAt, rem.RRule, rem.TimeZone, rem.SkipHolidays
	} else {
		rd, _, ok := s.readWhen(w, req.When)
		if !ok {
			return
		}
		rule, p.DueAt = rd.Rule, rd.At
	}
	sch := s.opts.Deps.Schedules
	rem, err = sch.Edit(r.Context(), id, p, rule, sch.Location())
	if errors.Is(err, db.ErrReminderNotPending) {
		writeError(w, http.StatusConflict, scheduleOver)
		return
	}
	if err != nil {
		s.scheduleRefused(w, req, err)
		return
	}
	s.writeReminder(w, r, rem)
}

// scheduleRefused answers a create or edit the scheduler refused. What the
// form checked is checked again; what is left is a limit
// (REMINDER_MAX_PENDING, SCHEDULE_MAX_PER_SPACE) or the database. The log
// says which.
func (s *Server) scheduleRefused(w http.ResponseWriter, req scheduleRequest, err error) {
	s.opts.Logger.Warn("admin api: schedule not stored", "channel_id", req.ChannelID, "err", err)
	writeError(w, http.StatusUnprocessableEntity, "保存できませんでした。予定の数が上限（REMINDER_MAX_PENDING・SCHEDULE_MAX_PER_SPACE）に達していないか確かめてください。")
}

// maxScheduleRunes is the longest content the form takes (the scheduler's
// own limit).
const maxScheduleRunes = 1500

// handleTestSchedule posts a reminder or scheduled post once, now, marked
// as a test, without touching its schedule: POST /api/reminders/{id}/test.
func (s *Server) handleTestSchedule(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(testSendTimeout + s.opts.WriteTimeout))
	ctx, cancel := context.WithTimeout(r.Context(), testSendTimeout)
	defer cancel()
	msgID, err := s.opts.Deps.Schedules.SendTest(ctx, id)
	switch {
	case errors.Is(err, db.ErrNotFound):
		writeError(w, http.StatusNotFound, "その予定はありません。")
	case err != nil:
		s.opts.Logger.Warn("admin api: test send failed", "reminder_id", id, "err", err)
		writeError(w, http.StatusBadGateway, "テスト送信できませんでした。Discord への接続とチャンネルの権限を確かめてください。")
	default:
		writeJSON(w, http.StatusOK, map[string]string{"message_id": msgID})
	}
}
