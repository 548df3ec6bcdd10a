package chat

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/yorozu-bot/yorozu/llm"
)

// Reminder is the reminder handler: the conversation with the reminder
// model and tools, told the current date, weekday and time so it can turn
// 「明日の朝9時」 into an RFC 3339 due_at.
type Reminder struct {
	chat *Conversation
	loc  *time.Location
}

// NewReminderHandler returns the reminder handler over c, whose Model is
// REMINDER_MODEL (falling back to WEATHER_NOTIFY_MODEL, then DEFAULT_MODEL)
// and whose Tools are the reminder tools (create_reminder, list_reminders,
// cancel_reminder). loc is TIMEZONE. c's System text is kept and extended.
func NewReminderHandler(c *Conversation, loc *time.Location) (*Reminder, error) {
	if c == nil || c.Tools == nil {
		return nil, errors.New("reminder handler: a conversation with the reminder tools is required")
	}
	if loc == nil {
		loc = time.Local
	}
	return &Reminder{chat: c, loc: loc}, nil
}

// Handle answers req with the reminder system text for the current time.
func (h *Reminder) Handle(ctx context.Context, req Request, emit func(llm.Event) error) error {
	now := req.At
	if now.IsZero() {
		now = h.chat.now()
	}
	return h.chat.with(ReminderSystem(now, h.loc)).Handle(ctx, req, emit)
}

var weekdaysJa = [...]string{"日曜日", "月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日"}

// ReminderSystem is the reminder handler's system text at now.
func ReminderSystem(now time.Time, loc *time.Location) string {
	now = now.In(loc)
	return fmt.Sprintf(`リマインダー担当です。現在は %d年%d月%d日（%s）%s、タイムゾーンは %s（UTC%s）です。
- リマインドの依頼には create_reminder を呼んでください。due_at は必ずオフセット付きの RFC 3339（例: %s）で、上の現在時刻から計算すること。content には時刻を除いた用件だけを書くこと。
- 時刻があいまい（「朝」だけ、日付が不明など）なら、作成前にユーザーに確認してください。ツールが確認を求めたら、両方の時刻を示してユーザーに聞き返してください。
- 作成できたら、ツール結果にある Discord タイムスタンプ（<t:…:F> と <t:…:R>）をそのまま書いて、日時と用件を短く伝えてください。
- 一覧は list_reminders、取り消しは cancel_reminder（番号は一覧の # の数字）を使ってください。`,
		now.Year(), now.Month(), now.Day(), weekdaysJa[now.Weekday()], now.Format("15:04"),
		loc.String(), now.Format("-07:00"),
		now.Add(time.Hour).Truncate(time.Minute).Format(time.RFC3339))
}
