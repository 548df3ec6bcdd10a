package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/holiday"
	"github.com/yorozu-bot/yorozu/llm"
)

// Reminder is the reminder handler: the conversation with the reminder
// model and tools, told the current date, weekday and time in the user's
// time zone so it can turn 「明日の朝9時」 into an RFC 3339 due_at, and how
// to write a repeating rule.
type Reminder struct {
	// ZoneOf, when set, is the time zone a user reads times in: their own,
	// else TIMEZONE (scheduler.Reminders.LocationFor, which the reminder
	// tools read the user's words in too). Nil: TIMEZONE for everyone.
	ZoneOf func(ctx context.Context, userID string) *time.Location

	chat *Conversation
	loc  *time.Location
}

// NewReminderHandler returns the reminder handler over c, whose Model is
// REMINDER_MODEL (falling back to WEATHER_NOTIFY_MODEL, then DEFAULT_MODEL)
// and whose Tools are the reminder tools (tools/reminder's Names). loc is
// TIMEZONE; set ZoneOf for users' own zones. c's System text is kept and
// extended.
func NewReminderHandler(c *Conversation, loc *time.Location) (*Reminder, error) {
	if c == nil || c.Tools == nil {
		return nil, errors.New("reminder handler: a conversation with the reminder tools is required")
	}
	if loc == nil {
		loc = time.Local
	}
	return &Reminder{chat: c, loc: loc}, nil
}

// Handle answers req with the reminder system text for the current time in
// the user's zone.
func (h *Reminder) Handle(ctx context.Context, req Request, emit func(llm.Event) error) error {
	now := req.At
	if now.IsZero() {
		now = h.chat.now()
	}
	// The user's zone is looked up beside the context's reads.
	return h.chat.withAside(func(ctx context.Context) string {
		loc := h.loc
		if h.ZoneOf != nil && req.AuthorID != "" {
			if z := h.ZoneOf(ctx, req.AuthorID); z != nil {
				loc = z
			}
		}
		return ReminderSystem(now, loc)
	}).Handle(ctx, req, emit)
}

var weekdaysJa = [...]string{"日曜日", "月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日"}

// ReminderSystem is the reminder handler's system text at now, in the
// user's zone loc.
func ReminderSystem(now time.Time, loc *time.Location) string {
	now = now.In(loc)
	return fmt.Sprintf(`リマインダー担当です。現在は %d年%d月%d日（%s）%s、ユーザーのタイムゾーンは %s（UTC%s）です。`+holidayLine(now)+`
- 一回だけのリマインドには create_reminder を due_at 付きで呼んでください。due_at は必ずオフセット付きの RFC 3339（例: %s）で、上の現在時刻から計算すること。content には時刻を除いた用件だけを書くこと。
- 繰り返すリマインド（毎週・毎朝・毎日・毎月・平日・隔週など）には、due_at ではなく repeat を渡してください。ユーザーが言ったことだけを入れ、言っていない start・until・count・skip_holidays は入れないこと。例:
  - 毎週月曜と木曜の朝7時 → {"frequency":"weekly","weekdays":["MO","TH"],"time":"07:00"}
  - 平日9時 → {"frequency":"weekly","weekdays":["MO","TU","WE","TH","FR"],"time":"09:00","skip_holidays":true}
  - 毎月末 → {"frequency":"monthly","month_days":[-1]}
  - 隔週土曜 → {"frequency":"weekly","interval":2,"weekdays":["SA"]}
  - 毎月第2火曜の19時 → {"frequency":"monthly","nth":2,"weekdays":["TU"],"time":"19:00"}
- このチャンネルへの定期投稿（ボットが毎回答えを書いて投稿する）には create_scheduled_post を使ってください。例: 「毎週金曜17時にこのチャンネルで天気のことわざを投稿して」→ prompt は「天気のことわざを一つ紹介して」、repeat は {"frequency":"weekly","weekdays":["FR"],"time":"17:00"}。チャンネル管理の権限が要ります。権限がないとツールが言ったら、そのままユーザーに伝えてください。
- このチャンネルでメンバーが話したことのまとめ（今日の話題・今週の話題など）を定期投稿するときは、create_scheduled_post に "digest":true を付けてください。毎回、前回の投稿からの会話を読んで要約し、発言へのリンク付きで投稿します。例: 「毎日22時にこのチャンネルの今日の話題をまとめて投稿して」→ prompt は「今日の話題をまとめて」、repeat は {"frequency":"daily","time":"22:00"}、digest は true。ツール結果に何を読むか（記録かメッセージ履歴か、足りない権限）が書いてあれば、それもそのままユーザーに伝えてください。
- 時刻があいまい（「朝」だけ、日付が不明など）なら、作成前にユーザーに確認してください。ツールが確認を求めたら（ユーザーの言葉の読み方とあなたの指定が違うとき）、作らずに両方の読み方を言葉で示してユーザーに聞き返してください。
- 作成できたら、ツール結果にある繰り返しの言葉と Discord タイムスタンプ（<t:…:F> や <t:…:R>）をそのまま書いて、日時と用件を短く伝えてください。
- 一覧は list_reminders、取り消しは cancel_reminder（番号は一覧の # の数字）を使ってください。`,
		now.Year(), now.Month(), now.Day(), weekdaysJa[now.Weekday()], now.Format("15:04"),
		loc.String(), now.Format("-07:00"),
		now.Add(time.Hour).Truncate(time.Minute).Format(time.RFC3339))
}

var shortWeekdaysJa = [...]string{"日", "月", "火", "水", "木", "金", "土"}

// holidayLine tells the model about Japan's national holidays near now:
// today's, and the next within 60 days (「祝日の前の日に」 needs it).
func holidayLine(now time.Time) string {
	var parts []string
	if name := holiday.Name(now); name != "" {
		parts = append(parts, "今日は"+name+"です。")
	}
	for d := 1; d <= 60; d++ {
		day := now.AddDate(0, 0, d)
		if name := holiday.Name(day); name != "" {
			parts = append(parts, fmt.Sprintf("次の祝日は %d月%d日（%s）の%sです。", day.Month(), day.Day(), shortWeekdaysJa[day.Weekday()], name))
			break
		}
	}
	return strings.Join(parts, "")
}
