package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/recur"
)

// RemindThisName is the message command's name, as Discord shows it to
// English users.
const RemindThisName = "Remind me of this"

// RemindThisPrefix starts the custom ids of the 登録 / やめる buttons under
// a 「これをリマインド」 read-back: yz:rt:<offer id>:<y|n>:<signature>.
const RemindThisPrefix = "yz:rt:"

// remindThisKind is the kind of the offers a read-back keeps until 登録 or
// やめる is pressed.
const remindThisKind = "remind_this"

// Texts of 「これをリマインド」.
const (
	remindThisEmptyWhen = "いつ知らせるかが空です。"
	remindThisDeclined  = "やめました。リマインダーは登録していません。"
	remindThisNotYours  = "このボタンを押せるのは、「これをリマインド」を使った本人だけです。"
	remindThisDecided   = "このリマインダーはもう登録したか、やめたものです。"
	remindThisGone      = "この確認は見つかりませんでした。もう一度「これをリマインド」からやり直してください。"
	remindThisBadButton = "このボタンは使えません。"
	remindThisRetry     = "いまは登録できませんでした。しばらくしてからもう一度押してください。"
	remindThisNoDM      = "よろずとの DM を開けなかったため、リマインダーを届ける先がありません。しばらくしてからもう一度お試しください。"
	// remindThisToDM says where a reminder from where yorozu is not goes.
	remindThisToDM = "ここにはよろずがいないため、よろずとの DM にお届けします（メッセージへのリンク付き）。"
)

// remindThisPending is what a read-back keeps until 登録: what was read,
// and where and how the reminder goes.
type remindThisPending struct {
	When       string    `json:"when"`
	Content    string    `json:"content"` // the user's words and the message's link
	ReadAt     time.Time `json:"read_at"` // when the words were read; a repeat is read again from here
	At         time.Time `json:"at"`      // a one-shot's time; zero for a repeat
	TimeZone   string    `json:"time_zone"`
	GuildID    string    `json:"guild_id"`
	ChannelID  string    `json:"channel_id"`
	SessionKey string    `json:"session_key"`
	ToDM       bool      `json:"to_dm"` // delivered to the user's DM: yorozu is not where it was made
}

// RemindThis is the message command 「これをリマインド」: a form asks when
// (read as /remind add reads it) and, optionally, what. Nothing is kept
// yet: the time as read (and, for a repeat, the next occurrences) is shown
// to the user alone with 登録 and やめる, and only 登録 keeps the reminder,
// with a link to the message (RemindThisButtons). Where yorozu is not a
// member, the reminder is delivered to the user's DM with yorozu. q keeps
// the read-back until it is answered; signer signs its buttons.
func RemindThis(r Reminders, q db.Querier, signer ButtonSigner, log *slog.Logger) Command {
	return Command{
		Name:     RemindThisName,
		NameJA:   "これをリマインド",
		Message:  true,
		Anywhere: true,
		Modal: &Modal{Title: "これをリマインド", Inputs: []Input{
			{ID: "when", Label: "いつ知らせますか", Placeholder: "明日の9時、30分後、毎週月曜の8時", MaxLength: 200, Required: true},
			{ID: "what", Label: "用件（空ならメッセージへのリンクだけ）", MaxLength: 500, Long: true},
		}},
		Submit: func(ctx context.Context, req Request) Reply {
			return remindThisReadBack(ctx, r, q, signer, req, log)
		},
	}
}

// remindThisReadBack reads the form of 「これをリマインド」 and answers with
// what it read, and 登録 / やめる; or with why it cannot, keeping nothing.
func remindThisReadBack(ctx context.Context, r Reminders, q db.Querier, signer ButtonSigner, req Request, log *slog.Logger) Reply {
	if req.UserID == "" || !signer.Enabled() {
		return Text(unsupportedReply)
	}
	when := req.String("when")
	if when == "" {
		return Text(remindThisEmptyWhen + whenExample)
	}
	link := "https://discord.com/channels/" + guildOrMe(req.GuildID) + "/" + req.ChannelID + "/" + req.TargetID
	content := strings.TrimSpace(req.String("what") + " " + link)
	if n := utf8.RuneCountInString(content); n > maxContentRunes {
		return Text(fmt.Sprintf("用件が長すぎます（%d文字、最大%d文字）。", n, maxContentRunes))
	}
	if msg := limitReached(ctx, r, req, db.KindRemind, log); msg != "" {
		return Text(msg)
	}
	loc := r.LocationFor(ctx, req.UserID)
	now := r.Now().In(loc)
	w, err := ReadWhen(when, now, loc, r.MaxAhead())
	if err != nil {
		return Text(err.Error())
	}
	p := remindThisPending{When: when, Content: content, ReadAt: now, At: w.At, TimeZone: loc.String(),
		GuildID: req.GuildID, ChannelID: req.ChannelID, SessionKey: sessionKey(req)}
	if req.BotAbsent {
		dm := ""
		if req.OpenDM != nil {
			dm, err = req.OpenDM(ctx)
		}
		if dm == "" {
			log.Warn("これをリマインド: open the user's DM", "user_id", req.UserID, "err", err)
			return Text(remindThisNoDM)
		}
		p.GuildID, p.ChannelID, p.SessionKey, p.ToDM = "", dm, string(memory.DiscordDM(dm)), true
	}
	payload, err := json.Marshal(p)
	if err != nil {
		log.Error("これをリマインド: keep the read-back", "user_id", req.UserID, "err", err)
		return Text("登録できませんでした。しばらくしてからもう一度お試しください。")
	}
	o, err := db.CreateOffer(ctx, q, db.Offer{Kind: remindThisKind, Space: string(memory.SpaceOf("discord", p.GuildID, req.UserID)),
		UserID: req.UserID, GuildID: p.GuildID, ChannelID: p.ChannelID, Payload: payload})
	if err != nil {
		log.Error("これをリマインド: keep the read-back", "user_id", req.UserID, "err", err)
		return Text("登録できませんでした。しばらくしてからもう一度お試しください。")
	}
	id := strconv.FormatInt(o.ID, 10)
	return Reply{Text: readBackText(p, w, loc), Buttons: []Button{
		{Label: "登録", CustomID: signer.ID(RemindThisPrefix, id, "y")},
		{Label: "やめる", CustomID: signer.ID(RemindThisPrefix, id, "n"), Secondary: true},
	}}
}

// readBackText shows what the words of when were read as, before anything
// is kept.
func readBackText(p remindThisPending, w When, loc *time.Location) string {
	var b strings.Builder
	if w.Rule == nil {
		fmt.Fprintf(&b, "「%s」は <t:%d:F>（<t:%d:R>）と読み取りました。%s", p.When, w.At.Unix(), w.At.Unix(), w.Note)
	} else {
		rule := w.Rule.Anchor(p.ReadAt, loc)
		next := timestamps(rule.Next(p.ReadAt, loc, 3))
		fmt.Fprintf(&b, "「%s」は繰り返し %s（%s）と読み取りました。\n次の%d回: %s", p.When, rule.Describe(), loc, len(next), strings.Join(next, "、"))
	}
	fmt.Fprintf(&b, "\n用件: %s", p.Content)
	if p.ToDM {
		b.WriteString("\n" + remindThisToDM)
	}
	b.WriteString("\nこの内容でよければ「登録」を押してください（まだ登録していません）。")
	return b.String()
}

// RemindThisButtons answers 登録 and やめる under a 「これをリマインド」
// read-back: only the user who asked may press, once; 登録 keeps the
// reminder as it was read and says so in place of the read-back.
func RemindThisButtons(r Reminders, q db.Querier, signer ButtonSigner, log *slog.Logger) Buttons {
	return Buttons{Prefix: RemindThisPrefix, Press: func(ctx context.Context, p Press) PressReply {
		return pressRemindThis(ctx, r, q, signer, p, log)
	}}
}

func pressRemindThis(ctx context.Context, r Reminders, q db.Querier, signer ButtonSigner, p Press, log *slog.Logger) PressReply {
	fields, err := signer.Read(p.CustomID, RemindThisPrefix, 2)
	var id int64
	if err == nil {
		id, err = strconv.ParseInt(fields[0], 10, 64)
	}
	if err != nil || fields[1] != "y" && fields[1] != "n" {
		log.Warn("これをリマインド: button refused", "custom_id", p.CustomID, "user_id", p.UserID, "err", err)
		return PressReply{Text: remindThisBadButton}
	}
	o, err := db.DecideOffer(ctx, q, db.OfferPress{ID: id, UserID: p.UserID, Accept: fields[1] == "y",
		Lifetime: OfferLifetime, Lease: offerLease})
	switch {
	case errors.Is(err, db.ErrNotOffered):
		return PressReply{Text: remindThisNotYours}
	case errors.Is(err, db.ErrOfferDecided), errors.Is(err, db.ErrOfferBusy):
		return PressReply{Text: remindThisDecided}
	case errors.Is(err, db.ErrNotFound), errors.Is(err, db.ErrOfferExpired):
		return PressReply{Text: remindThisGone}
	case err != nil:
		log.Error("これをリマインド: press", "offer_id", id, "err", err)
		return PressReply{Text: remindThisRetry}
	}
	if o.Kind != remindThisKind {
		return PressReply{Text: remindThisBadButton}
	}
	if !o.Accepted {
		return PressReply{Update: remindThisDeclined}
	}
	text, refusal, err := keepRemindThis(ctx, r, o)
	if refusal == "" && err == nil {
		if ferr := db.FinishOffer(context.WithoutCancel(ctx), q, o.ID); ferr != nil {
			log.Error("これをリマインド: finish", "offer_id", o.ID, "err", ferr)
		}
		return PressReply{Update: text}
	}
	// Not kept: the read-back stays to be pressed again (or やめる).
	if rerr := db.ReopenOffer(context.WithoutCancel(ctx), q, o.ID, o.Attempts); rerr != nil {
		log.Error("これをリマインド: reopen", "offer_id", o.ID, "err", rerr)
	}
	if refusal != "" {
		return PressReply{Text: refusal}
	}
	log.Error("これをリマインド: keep", "offer_id", o.ID, "user_id", o.UserID, "err", err)
	return PressReply{Text: remindThisRetry}
}

// keepRemindThis keeps the reminder of accepted read-back o and returns
// its confirmation; refusal is the reason it cannot be kept now (its time
// went by meanwhile, the limit was reached).
func keepRemindThis(ctx context.Context, r Reminders, o db.Offer) (text, refusal string, err error) {
	var p remindThisPending
	if err := json.Unmarshal(o.Payload, &p); err != nil {
		return "", "", fmt.Errorf("read offer %d: %w", o.ID, err)
	}
	loc, err := recur.LoadLocation(p.TimeZone)
	if err != nil {
		loc = r.LocationFor(ctx, o.UserID)
	}
	if mine, err := r.List(ctx, o.UserID, ""); err != nil {
		return "", "", fmt.Errorf("count reminders of %s: %w", o.UserID, err)
	} else if len(mine) >= r.MaxPending() {
		return "", fmt.Sprintf("これから届くリマインダーと定期投稿は1人%d件までです。`/remind cancel` で不要なものを取り消してから押してください。", r.MaxPending()), nil
	}
	params := db.ReminderParams{SessionKey: p.SessionKey, GuildID: p.GuildID, ChannelID: p.ChannelID, UserID: o.UserID,
		Content: p.Content, Kind: db.KindRemind, TimeZone: loc.String()}
	var rem db.Reminder
	if p.At.IsZero() {
		// The rule is read again as it was read for the read-back.
		w, werr := ReadWhen(p.When, p.ReadAt, loc, r.MaxAhead())
		if werr != nil || w.Rule == nil {
			return "", "", fmt.Errorf("read %q again: %w", p.When, werr)
		}
		rem, err = r.Repeat(ctx, params, *w.Rule, loc)
	} else {
		if p.At.Before(r.Now().Add(-time.Minute)) {
			return "", fmt.Sprintf("読み取った日時 <t:%d:F> はもう過ぎました。「やめる」を押して、もう一度「これをリマインド」からやり直してください。", p.At.Unix()), nil
		}
		params.DueAt = p.At
		rem, err = r.Create(ctx, params)
	}
	if err != nil {
		return "", "", err
	}
	text = confirmation(ctx, r, rem)
	if p.ToDM {
		text += "\n" + remindThisToDM
	}
	return text, "", nil
}
