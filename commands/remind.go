package commands

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/holiday"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/recur"
	"github.com/yorozu-bot/yorozu/tools/reminder"
)

// Reminders is what /remind, /schedule and the reminder buttons need;
// *scheduler.Reminders satisfies it.
type Reminders interface {
	List(ctx context.Context, userID, channelID string) ([]db.Reminder, error)
	Posts(ctx context.Context, guildID string) ([]db.Reminder, error)
	Get(ctx context.Context, who db.Owner, id int64) (db.Reminder, error)
	Create(ctx context.Context, p db.ReminderParams) (db.Reminder, error)
	Repeat(ctx context.Context, p db.ReminderParams, rule recur.Rule, loc *time.Location) (db.Reminder, error)
	Cancel(ctx context.Context, userID string, id int64) (db.Reminder, error)
	CancelInGuild(ctx context.Context, guildID string, id int64) (db.Reminder, error)
	Pause(ctx context.Context, who db.Owner, id int64) (db.Reminder, error)
	Resume(ctx context.Context, who db.Owner, id int64) (db.Reminder, error)
	Skip(ctx context.Context, who db.Owner, id int64) (db.Reminder, error)
	Snooze(ctx context.Context, who db.Owner, id int64, d time.Duration) (db.Reminder, error)
	ReadButton(customID string) (action string, id int64, err error)
	Upcoming(rem db.Reminder, n int) []time.Time
	RuleText(rem db.Reminder) string
	LocationFor(ctx context.Context, userID string) *time.Location
	Now() time.Time
	MaxAhead() time.Duration
	MaxPending() int
	MaxPostsPerSpace() int
	// DigestNote says, in a sentence, where a digest of channelID will
	// read from; "" when it cannot say.
	DigestNote(ctx context.Context, guildID, channelID string) string
}

// maxContentRunes matches scheduler.MaxContentLength.
const maxContentRunes = 1500

// whenExample is shown when the words of when cannot be read.
const whenExample = "例: `明日の9時`、`30分後`、`毎週月・木の7時`、`平日 8:30`、`毎月1日 祝日は除く`、`every Monday at 8`"

var idOption = func() Option {
	minID := 1.0
	return Option{
		Type: Integer, Name: "id", Required: true, MinValue: &minID,
		Description:   "Reminder number (from /remind list)",
		DescriptionJA: "リマインダー番号（/remind list の #）",
	}
}

// Remind is /remind add|list|cancel|pause|resume|skip: the caller's
// reminders, one-shot and repeating; with Manage Messages, anyone's in the
// server may be cancelled, paused, resumed or skipped. It works where
// yorozu is not a member too (a user install): a reminder set there is
// delivered to the user's DM with yorozu.
func Remind(r Reminders, log *slog.Logger) Command {
	sub := func(name, en, ja string, opts ...Option) Option {
		return Option{Type: Subcommand, Name: name, Description: en, DescriptionJA: ja, Options: opts}
	}
	return Command{
		Name:          "remind",
		Description:   "Your reminders, one-shot and repeating",
		DescriptionJA: "リマインダー（1回だけ・繰り返し）",
		Options: []Option{
			sub("add", "Set a reminder from words (tomorrow 9:00, every Monday and Thursday at 7)",
				"言葉でリマインダーを設定（明日の9時、毎週月・木の7時）",
				Option{Type: String, Name: "when", Required: true, MaxLength: 200,
					Description: "When: 明日の9時, 30分後, 毎週月・木の7時, weekdays at 9", DescriptionJA: "いつ: 明日の9時、30分後、毎週月・木の7時、平日9時"},
				Option{Type: String, Name: "what", Required: true, MaxLength: maxContentRunes,
					Description: "What to remind you of", DescriptionJA: "用件"}),
			sub("list", "List your reminders in this channel", "このチャンネルのリマインダーを表示"),
			sub("cancel", "Cancel one of your reminders (anyone's here with Manage Messages)",
				"リマインダーを取り消す（メッセージの管理権限があれば他の人のものも）", idOption()),
			sub("pause", "Pause a repeating reminder", "リマインダーを一時停止", idOption()),
			sub("resume", "Resume a paused reminder", "一時停止したリマインダーを再開", idOption()),
			sub("skip", "Skip the next occurrence of a repeating reminder", "繰り返しリマインダーの次の1回をスキップ", idOption()),
		},
		// Reminders are kept in the database and delivered to a DM where
		// yorozu cannot post: they need yorozu nowhere.
		Anywhere: true,
		Run: func(ctx context.Context, req Request) Reply {
			return Text(remindReply(ctx, r, req, log))
		},
	}
}

func remindReply(ctx context.Context, r Reminders, req Request, log *slog.Logger) string {
	if req.UserID == "" {
		return unsupportedReply
	}
	switch req.Subcommand {
	case "add":
		return remindAdd(ctx, r, req, db.KindRemind, log)
	case "list":
		return remindList(ctx, r, req, log)
	case "cancel":
		return remindCancel(ctx, r, req, log)
	case "pause", "resume", "skip":
		return remindChange(ctx, r, req, log)
	}
	return unsupportedReply
}

// remindAdd reads when and stores a one-shot or repeating reminder (or,
// with kind KindPost or KindDigest, a scheduled post) in the caller's
// time zone, and answers with what will happen.
func remindAdd(ctx context.Context, r Reminders, req Request, kind string, log *slog.Logger) string {
	what := req.String("what")
	if db.PostKind(kind) {
		what = req.String("prompt")
	}
	when := req.String("when")
	switch n := utf8.RuneCountInString(what); {
	case n == 0:
		return "用件が空です。`what` に知らせてほしいことを書いてください。"
	case n > maxContentRunes:
		return fmt.Sprintf("用件が長すぎます（%d文字、最大%d文字）。", n, maxContentRunes)
	}
	if msg := limitReached(ctx, r, req, kind, log); msg != "" {
		return msg
	}
	loc := r.LocationFor(ctx, req.UserID)
	now := r.Now().In(loc)
	p := db.ReminderParams{
		SessionKey: sessionKey(req), GuildID: req.GuildID, ChannelID: req.ChannelID, UserID: req.UserID,
		Content: what, Kind: kind, TimeZone: loc.String(),
	}
	w, err := ReadWhen(when, now, loc, r.MaxAhead())
	if err != nil {
		return err.Error()
	}
	toDM := ""
	if req.BotAbsent && !db.PostKind(kind) {
		// yorozu cannot post here: the reminder goes to the user's DM,
		// with a link back to where it was set.
		dm := ""
		if req.OpenDM != nil {
			dm, err = req.OpenDM(ctx)
		}
		if dm == "" {
			log.Warn("/remind add: open the user's DM", "user_id", req.UserID, "err", err)
			return remindThisNoDM
		}
		if n := utf8.RuneCountInString(what) + 1 + len(placeLink(req)); n <= maxContentRunes {
			p.Content = what + " " + placeLink(req)
		}
		p.GuildID, p.ChannelID, p.SessionKey = "", dm, string(memory.DiscordDM(dm))
		toDM = "\nここにはよろずがいないため、よろずとの DM にお届けします（ここへのリンク付き）。"
	}
	if w.Rule != nil {
		rem, err := r.Repeat(ctx, p, *w.Rule, loc)
		if err != nil {
			log.Error("/remind add", "user_id", req.UserID, "kind", kind, "err", err)
			return "登録できませんでした。しばらくしてからもう一度お試しください。"
		}
		return confirmation(ctx, r, rem) + toDM
	}
	p.DueAt = w.At
	rem, err := r.Create(ctx, p)
	if err != nil {
		log.Error("/remind add", "user_id", req.UserID, "kind", kind, "err", err)
		return "登録できませんでした。しばらくしてからもう一度お試しください。"
	}
	return confirmation(ctx, r, rem) + w.Note + toDM
}

// placeLink is a link to the channel (DM, group DM) a command came from.
func placeLink(req Request) string {
	return "https://discord.com/channels/" + guildOrMe(req.GuildID) + "/" + req.ChannelID
}

// limitReached is the refusal when the caller (or, for a post, the
// server) has as many as allowed; "" when there is room. The scheduler
// checks again under a lock.
func limitReached(ctx context.Context, r Reminders, req Request, kind string, log *slog.Logger) string {
	if db.PostKind(kind) {
		posts, err := r.Posts(ctx, req.GuildID)
		if err != nil {
			log.Error("/schedule add: count posts", "guild_id", req.GuildID, "err", err)
			return "定期投稿を確認できませんでした。しばらくしてからもう一度お試しください。"
		}
		if len(posts) >= r.MaxPostsPerSpace() {
			return fmt.Sprintf("このサーバーの定期投稿は%d件までです。`/schedule cancel` で不要なものを取り消してください。", r.MaxPostsPerSpace())
		}
	}
	mine, err := r.List(ctx, req.UserID, "")
	if err != nil {
		log.Error("/remind add: count reminders", "user_id", req.UserID, "err", err)
		return "リマインダーを確認できませんでした。しばらくしてからもう一度お試しください。"
	}
	if len(mine) >= r.MaxPending() {
		return fmt.Sprintf("これから届くリマインダーと定期投稿は1人%d件までです。`/remind cancel` で不要なものを取り消してください。", r.MaxPending())
	}
	return ""
}

// When is what the words of /remind add's when read as: a repeat, or one
// time.
type When struct {
	Rule *recur.Rule // the repeat; nil for one time
	At   time.Time   // the one time
	// Note says what was assumed (a day without a time of day), for the
	// one time; "" otherwise.
	Note string
}

// ReadWhen reads when at now, in loc, as /remind add does: a repeat
// (recur.Parse), else one time (reminder.ParseWhen) from now up to
// maxAhead. Its error is the sentence a person is shown.
func ReadWhen(when string, now time.Time, loc *time.Location, maxAhead time.Duration) (When, error) {
	now = now.In(loc)
	rule, err := recur.Parse(when, now, loc)
	switch {
	case err == nil:
		if verr := rule.Anchor(now, loc).Validate(now, loc); verr != nil {
			return When{}, fmt.Errorf("「%s」は登録できません: %w", when, verr)
		}
		return When{Rule: &rule}, nil
	case !errors.Is(err, recur.ErrNotRepeating):
		return When{}, fmt.Errorf("「%s」を読み取れませんでした: %w\n%s", when, err, whenExample)
	}
	due, note, ok := oneShotTime(when, now)
	switch {
	case !ok:
		return When{}, fmt.Errorf("「%s」から日時を読み取れませんでした。\n%s", when, whenExample)
	case due.Before(now.Add(-time.Minute)):
		return When{}, fmt.Errorf("「%s」は <t:%d:F> で、もう過ぎています。", when, due.Unix())
	case due.After(now.Add(maxAhead)):
		return When{}, fmt.Errorf("リマインダーは%d日先までです。", int(maxAhead.Hours()/24))
	}
	return When{At: due, Note: note}, nil
}

// periodHours are the times a part of the day alone stands for, as in
// recur: 朝 7:00, 夜 21:00.
var periodHours = map[string]int{"am": 9, "pm": 15, "morning": 7, "noon": 12, "evening": 18, "night": 21, "latenight": 0}

// oneShotTime reads a one-shot time; a day without a time of day is taken
// at the period's hour, else 9:00, and note says so.
func oneShotTime(when string, now time.Time) (due time.Time, note string, ok bool) {
	rd, ok := reminder.ParseWhen(when, now)
	if !ok {
		return time.Time{}, "", false
	}
	if rd.HasClock {
		return rd.At, "", true
	}
	h, said := periodHours[rd.Period]
	if !said {
		h = 9
	}
	d := rd.At.In(now.Location())
	due = time.Date(d.Year(), d.Month(), d.Day(), h, 0, 0, 0, now.Location())
	if rd.Period == "latenight" {
		due = due.AddDate(0, 0, 1)
	}
	if !rd.HasDate && !due.After(now) {
		due = due.AddDate(0, 0, 1)
	}
	return due, fmt.Sprintf("\n（時刻の指定がないので %s にしました）", due.Format("15:04")), true
}

// confirmation says what was stored and what will happen: the rule in
// words and the next three occurrences as Discord timestamps, a national
// holiday named (the rule may not mean to fire on one), and for a digest
// what it will read.
func confirmation(ctx context.Context, r Reminders, rem db.Reminder) string {
	what := "リマインダー"
	switch rem.Kind {
	case db.KindPost:
		what = "定期投稿"
	case db.KindDigest:
		what = "話題のまとめの定期投稿"
	}
	reads := ""
	if rem.Kind == db.KindDigest {
		if note := r.DigestNote(ctx, rem.GuildID, rem.ChannelID); note != "" {
			reads = "\n" + note
		}
	}
	if !rem.Repeats() {
		return fmt.Sprintf("%s #%d を登録しました: <t:%d:F>（<t:%d:R>）%s", what, rem.ID, rem.DueAt.Unix(), rem.DueAt.Unix(), rem.Content) + reads
	}
	next := timestamps(r.Upcoming(rem, 3))
	return fmt.Sprintf("%s #%d を登録しました: %s\n繰り返し: %s（%s）\n次の%d回: %s",
		what, rem.ID, rem.Content, r.RuleText(rem), rem.TimeZone, len(next), strings.Join(next, "、")) + reads
}

// timestamps are times as Discord timestamps, a national holiday named beside
// its day: the rule may not mean to fire on one.
func timestamps(times []time.Time) []string {
	out := make([]string, 0, len(times))
	for _, t := range times {
		stamp := fmt.Sprintf("<t:%d:F>", t.Unix())
		if name := holiday.Name(t); name != "" {
			stamp += "（" + name + "）"
		}
		out = append(out, stamp)
	}
	return out
}

func sessionKey(req Request) string {
	if req.DM() {
		return string(memory.DiscordDM(req.ChannelID))
	}
	return string(memory.DiscordChannel(req.ChannelID))
}

func remindList(ctx context.Context, r Reminders, req Request, log *slog.Logger) string {
	channel, head := req.ChannelID, "あなたのリマインダー：\n"
	if req.BotAbsent {
		// Nothing of yorozu's is delivered here: all of the user's, which
		// only they see.
		channel, head = "", "あなたのリマインダー（すべての場所）：\n"
	}
	rs, err := r.List(ctx, req.UserID, channel)
	if err != nil {
		log.Error("/remind list", "user_id", req.UserID, "err", err)
		return "リマインダーを読み込めませんでした。しばらくしてからもう一度お試しください。"
	}
	switch {
	case len(rs) == 0 && req.BotAbsent:
		return "あなたのリマインダーはありません。`/remind add` で設定できます。"
	case len(rs) == 0:
		return "このチャンネルであなたのリマインダーはありません。`/remind add` で設定できます。"
	}
	return listText(head, r, rs)
}

// listText lists rs under head, each with its next occurrence and, when
// it repeats, its rule; within a message's length.
func listText(head string, r Reminders, rs []db.Reminder) string {
	var b strings.Builder
	b.WriteString(head)
	for _, rem := range rs {
		line := fmt.Sprintf("#%d <t:%d:F>（<t:%d:R>）%s", rem.ID, rem.DueAt.Unix(), rem.DueAt.Unix(), rem.Content)
		if rem.Kind == db.KindDigest {
			line += "　📝 話題のまとめ"
		}
		if rem.Repeats() {
			line += "　🔁 " + r.RuleText(rem)
		}
		if rem.PausedAt != nil {
			line += "　⏸ 一時停止中"
		}
		line += "\n"
		if b.Len()+len(line) > 1900 {
			b.WriteString("…")
			break
		}
		b.WriteString(line)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func remindCancel(ctx context.Context, r Reminders, req Request, log *slog.Logger) string {
	user, id := req.UserID, req.Int("id")
	rem, err := r.Cancel(ctx, user, id)
	if errors.Is(err, db.ErrNotFound) && !req.DM() && !req.BotAbsent && req.Can(ManageMessages) {
		rem, err = r.CancelInGuild(ctx, req.GuildID, id)
	}
	switch {
	case errors.Is(err, db.ErrNotFound):
		return fmt.Sprintf("#%d のリマインダーは見つかりません。`/remind list` で番号を確認してください。", id)
	case errors.Is(err, db.ErrReminderNotPending):
		return notPendingText(rem)
	case err != nil:
		log.Error("/remind cancel", "user_id", user, "reminder_id", id, "err", err)
		return "取り消せませんでした。しばらくしてからもう一度お試しください。"
	}
	if rem.UserID != user {
		return fmt.Sprintf("<@%s> さんの #%d（<t:%d:F>）%s を取り消しました。", rem.UserID, rem.ID, rem.DueAt.Unix(), rem.Content)
	}
	return fmt.Sprintf("#%d（<t:%d:F>）%s を取り消しました。", rem.ID, rem.DueAt.Unix(), rem.Content)
}

func notPendingText(rem db.Reminder) string {
	switch {
	case rem.NotifiedAt != nil && rem.Repeats():
		return fmt.Sprintf("#%d の繰り返しはもう終わっています。", rem.ID)
	case rem.NotifiedAt != nil:
		return fmt.Sprintf("#%d はもうお届け済みです。", rem.ID)
	}
	return fmt.Sprintf("#%d はすでに取り消されているか、お届けできなかったものです。", rem.ID)
}

// owner is who the caller acts as: themself, and with Manage Messages in
// a server yorozu is in, anyone there.
func owner(req Request) db.Owner {
	o := db.Owner{UserID: req.UserID}
	if !req.DM() && !req.BotAbsent && req.Can(ManageMessages) {
		o.Guild = req.GuildID
	}
	return o
}

// remindChange is pause, resume and skip.
func remindChange(ctx context.Context, r Reminders, req Request, log *slog.Logger) string {
	id := req.Int("id")
	act := map[string]func(context.Context, db.Owner, int64) (db.Reminder, error){
		"pause": r.Pause, "resume": r.Resume, "skip": r.Skip,
	}[req.Subcommand]
	rem, err := act(ctx, owner(req), id)
	if text, ok := changeRefusal(rem, id, err); ok {
		if text == "" {
			log.Error("/remind "+req.Subcommand, "user_id", req.UserID, "reminder_id", id, "err", err)
			return "変更できませんでした。しばらくしてからもう一度お試しください。"
		}
		return text
	}
	switch req.Subcommand {
	case "pause":
		return fmt.Sprintf("#%d %s を一時停止しました。`/remind resume id:%d` で再開できます。", rem.ID, rem.Content, rem.ID)
	case "resume":
		if rem.NotifiedAt != nil {
			return fmt.Sprintf("#%d %s は一時停止中に繰り返しの終わりを過ぎたので、これで終了しました。", rem.ID, rem.Content)
		}
		return fmt.Sprintf("#%d %s を再開しました。次回は <t:%d:F>（<t:%d:R>）です。", rem.ID, rem.Content, rem.DueAt.Unix(), rem.DueAt.Unix())
	}
	if rem.NotifiedAt != nil {
		return fmt.Sprintf("#%d %s の次の回をスキップしました。これで最後の回だったので、繰り返しは終わりです。", rem.ID, rem.Content)
	}
	return fmt.Sprintf("#%d %s の次の回をスキップしました。次回は <t:%d:F>（<t:%d:R>）です。", rem.ID, rem.Content, rem.DueAt.Unix(), rem.DueAt.Unix())
}

// changeRefusal is the answer to a pause, resume, skip or snooze that did
// not happen (ok), "" for an unexpected error to log.
func changeRefusal(rem db.Reminder, id int64, err error) (string, bool) {
	var msg string
	switch {
	case err == nil:
		return "", false
	case errors.Is(err, db.ErrNotFound):
		msg = fmt.Sprintf("#%d のリマインダーは見つかりません。`/remind list` で番号を確認してください。", id)
	case errors.Is(err, db.ErrReminderNotPending):
		msg = notPendingText(rem)
	case errors.Is(err, db.ErrReminderPaused):
		msg = fmt.Sprintf("#%d はもう一時停止中です。", id)
	case errors.Is(err, db.ErrReminderNotPaused):
		msg = fmt.Sprintf("#%d は一時停止していません。", id)
	case errors.Is(err, db.ErrReminderNotRepeating):
		msg = fmt.Sprintf("#%d は1回だけのリマインダーなので、スキップできません。取り消すには `/remind cancel id:%d`。", id, id)
	}
	return msg, true
}
