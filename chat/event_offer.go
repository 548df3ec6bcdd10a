package chat

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/reminder"
)

// EventOfferName is the tool with which the model proposes a server event.
const EventOfferName = "offer_event"

// EventOfferKind is the kind of the offers offer_event makes.
const EventOfferKind = "event"

// Limits on a server event: Discord's on the name and the place; a year
// ahead is yorozu's, as far as a plan in chat sensibly reaches.
const (
	MaxEventName     = 100  // characters
	MaxEventPlace    = 100  // characters
	MaxEventDetail   = 1000 // characters
	MaxEventAhead    = 365 * 24 * time.Hour
	defaultEventSpan = 2 * time.Hour
)

const eventOfferAccepted = "Offered: the user sees the event's preview with 作成 / キャンセル buttons under your answer; the event is created only if they (with Manage Events) press 作成. Do not say it is already created."

// EventOffer is what an accepted offer_event offer creates: a scheduled
// event of the offer's server, at a place (external) or in a voice or
// stage channel.
type EventOffer struct {
	Name      string    `json:"name"`
	Detail    string    `json:"detail,omitempty"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Place     string    `json:"place,omitempty"`
	ChannelID string    `json:"channel_id,omitempty"`
}

type eventOfferArgs struct {
	Name    string `json:"name" jsonschema_description:"the event's name, in the user's language, at most 100 characters"`
	Start   string `json:"start" jsonschema_description:"when it starts, in the user's own words (土曜19時, 3月5日 14:00, tomorrow 7pm) or RFC 3339 with the offset"`
	End     string `json:"end,omitempty" jsonschema_description:"when it ends, in the user's words (21時, 22:30) or RFC 3339; leave empty when not said (two hours is assumed)"`
	Place   string `json:"place,omitempty" jsonschema_description:"where it happens when not in a Discord channel (a shop, an address, オンライン), at most 100 characters"`
	Channel string `json:"channel,omitempty" jsonschema_description:"the voice or stage channel it happens in, as <#id> or the id, when the user named one; then leave place empty"`
	Detail  string `json:"description,omitempty" jsonschema_description:"a short description, optional"`
}

// EventOfferDeps are what offer_event reads times with.
type EventOfferDeps struct {
	Now func() time.Time
	// LocationFor is the time zone userID reads times in.
	LocationFor func(ctx context.Context, userID string) *time.Location
}

// EventOfferTool is offer_event, keeping its offers in q: the model
// proposes a server event, and it is created only when the asker presses
// 作成.
func EventOfferTool(q db.Querier, d EventOfferDeps) tools.Tool {
	return tools.MustNew(EventOfferName,
		"Propose a Discord server event (a scheduled event in the server's event list) when the user asks for an event (イベント作って, ボドゲ会のイベント). "+
			"The user sees a preview with 作成 / キャンセル buttons; nothing is created unless they press 作成. Give the times in the user's own words.",
		func(ctx context.Context, a eventOfferArgs) (string, error) { return offerEvent(ctx, q, d, a) })
}

var channelRef = regexp.MustCompile(`^(?:<#)?(\d{15,21})>?$`)

// readEvent reads the model's arguments into an event at now in loc, as
// /remind add reads a time; its error says, in Japanese for the member,
// what is wrong.
func readEvent(a eventOfferArgs, now time.Time, loc *time.Location) (EventOffer, error) {
	e := EventOffer{Name: strings.Join(strings.Fields(a.Name), " "), Detail: strings.TrimSpace(a.Detail),
		Place: strings.Join(strings.Fields(a.Place), " ")}
	if ch := strings.TrimSpace(a.Channel); ch != "" {
		m := channelRef.FindStringSubmatch(ch)
		if m == nil {
			return EventOffer{}, fmt.Errorf("チャンネル「%s」がわかりませんでした。ボイスかステージのチャンネルを選んでください。", ch)
		}
		e.ChannelID, e.Place = m[1], ""
	}
	start, err := eventTime(a.Start, now, loc, "開始")
	if err != nil {
		return EventOffer{}, err
	}
	e.Start, e.End = start, start.Add(defaultEventSpan)
	if strings.TrimSpace(a.End) != "" {
		if e.End, err = eventTime(a.End, start, loc, "終了"); err != nil {
			return EventOffer{}, err
		}
	}
	return e, CheckEvent(e, now)
}

// eventTime reads words (or RFC 3339) as a time after base, in loc; a day
// without a time of day is refused, as an event needs its minute.
func eventTime(words string, base time.Time, loc *time.Location, what string) (time.Time, error) {
	words = strings.TrimSpace(words)
	if words == "" {
		return time.Time{}, fmt.Errorf("%s日時がありません。", what)
	}
	if t, err := time.Parse(time.RFC3339, words); err == nil {
		return t, nil
	}
	r, ok := reminder.ParseWhen(words, base.In(loc))
	switch {
	case !ok:
		return time.Time{}, fmt.Errorf("%s日時「%s」を読み取れませんでした。「土曜19時」「3月5日 14:00」のように書いてください。", what, words)
	case !r.HasClock:
		return time.Time{}, fmt.Errorf("%s日時「%s」に時刻がありません。「19時」のように時刻も書いてください。", what, words)
	}
	return r.At, nil
}

// CheckEvent says, in Japanese for the member, why e cannot be created at
// now: a time gone by or over a year ahead, an end before the start, no
// name, no place.
func CheckEvent(e EventOffer, now time.Time) error {
	switch {
	case e.Name == "":
		return errors.New("イベント名が空です。")
	case utf8.RuneCountInString(e.Name) > MaxEventName:
		return fmt.Errorf("イベント名は%d文字までです。", MaxEventName)
	case utf8.RuneCountInString(e.Detail) > MaxEventDetail:
		return fmt.Errorf("イベントの説明は%d文字までです。", MaxEventDetail)
	case !e.Start.After(now):
		return fmt.Errorf("開始日時 <t:%d:F> はもう過ぎています。", e.Start.Unix())
	case e.Start.After(now.Add(MaxEventAhead)):
		return errors.New("イベントは1年先までしか作れません。")
	case !e.End.After(e.Start):
		return fmt.Errorf("終了 <t:%d:F> が開始 <t:%d:F> より前です。", e.End.Unix(), e.Start.Unix())
	case e.ChannelID == "" && e.Place == "":
		return errors.New("場所がありません。場所（店名や住所、オンラインなど）か、ボイス・ステージチャンネルを指定してください。")
	case utf8.RuneCountInString(e.Place) > MaxEventPlace:
		return fmt.Errorf("場所は%d文字までです。", MaxEventPlace)
	}
	return nil
}

func offerEvent(ctx context.Context, q db.Querier, d EventOfferDeps, a eventOfferArgs) (string, error) {
	c, _ := tools.CallerFrom(ctx)
	if c.UserID == "" || c.GuildID == "" || c.Source != "discord" || !tools.CanOffer(ctx) {
		return "", errors.New("server events can be proposed only in a conversation in a Discord server: tell the user so; do not retry")
	}
	e, err := readEvent(a, d.Now(), d.LocationFor(ctx, c.UserID))
	if err != nil {
		return "", fmt.Errorf("the event was not proposed: %w Tell the user this reason in their language; fix it and call again only if their words allow", err)
	}
	if err := offerOnce(ctx, q, c, EventOfferKind, e, e.Preview()); err != nil {
		return "", err
	}
	return eventOfferAccepted, nil
}

// Preview is how the offer shows the event before it is made; the times
// are Discord timestamps, shown in each reader's time zone.
func (e EventOffer) Preview() string {
	var b strings.Builder
	b.WriteString("このイベントを作成しますか？（押せるのは頼んだ本人だけで、「イベントの管理」権限が必要です）\n")
	fmt.Fprintf(&b, "📅 **%s**\n", e.Name)
	fmt.Fprintf(&b, "日時：<t:%d:F> 〜 <t:%d:t>\n", e.Start.Unix(), e.End.Unix())
	if e.ChannelID != "" {
		fmt.Fprintf(&b, "場所：<#%s>", e.ChannelID)
	} else {
		fmt.Fprintf(&b, "場所：%s", e.Place)
	}
	if e.Detail != "" {
		b.WriteString("\n" + e.Detail)
	}
	return b.String()
}
