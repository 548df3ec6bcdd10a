package commands

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// /summary (要約) and the message command 「ここから要約」: what was said in
// a channel, summarised by the model with a jump link per point.

// Summarizer summarises a channel's talk; *chat.Summarizer satisfies it.
// What the user must read instead (nothing said, a history yorozu may not
// read) comes back as text with summarised false; an error is a failure.
type Summarizer interface {
	Summarize(ctx context.Context, guildID, channelID string, since, until time.Time, progress func(done, total int)) (text string, summarised bool, err error)
}

// Readers tell whether a user may read a channel; *bot.Bot satisfies it.
type Readers interface {
	MayRead(ctx context.Context, guildID, userID, channelID string) (bool, error)
}

// SummaryOptions are what /summary and 「ここから要約」 use.
type SummaryOptions struct {
	Summarizer Summarizer // required
	// Readers is asked about a channel other than the command's (channel:
	// or a link's); nil: no other channel may be summarised.
	Readers Readers
	Now     func() time.Time
	// Location is the zone of today and yesterday (TIMEZONE); default
	// time.Local.
	Location *time.Location
	Log      *slog.Logger
}

// maxSummaryPeriod is the longest period /summary reads: the history holds
// at most the last 500 messages anyway.
const maxSummaryPeriod = 31 * 24 * time.Hour

// defaultSince is the period of a /summary without since:.
const defaultSince = "24h"

// SummaryCommandName and SummaryFromHereName are the commands' names, as
// Discord shows them to English users.
const (
	SummaryCommandName  = "summary"
	SummaryFromHereName = "Summarize from here"
)

// Summary is /summary: the talk of a channel (this one unless channel:
// names another) since a time or a message, posted in the channel. It is
// offered where yorozu is not a member too (a user install), where it
// says why it cannot read the talk there (summaryAbsentReply).
func Summary(o SummaryOptions) Command {
	o = o.withDefaults()
	return Command{
		Name:          SummaryCommandName,
		NameJA:        "要約",
		Description:   "Summarise what was said in a channel, with a link to each point",
		DescriptionJA: "チャンネルで話されたことを要約します（各項目に元の発言へのリンク付き）",
		Options: []Option{
			{Type: String, Name: "since", Description: "From when: 30m, 2h, 24h, 7d, today, yesterday, or a message link (default 24h)",
				DescriptionJA: "いつから：30m・2h・24h・7d・today（今日）・yesterday（昨日）、またはメッセージのリンク（既定は24h）", MaxLength: 200},
			{Type: Channel, Name: "channel", Description: "The channel to summarise (default: this one)",
				DescriptionJA: "要約するチャンネル（既定はこのチャンネル）"},
		},
		Anywhere: true,
		Run: func(ctx context.Context, req Request) Reply {
			if req.BotAbsent {
				return Text(summaryAbsentReply)
			}
			return o.runSummary(ctx, req)
		},
	}
}

// summaryAbsentReply answers /summary where yorozu is not a member (a
// group DM, a server only the user installed it in): Discord gives a
// command there no history, and yorozu may not read one it is not in.
const summaryAbsentReply = "ここ（よろずが参加していないグループ DM やサーバー）の会話は、よろずには読めないため要約できません。" +
	"1 件のメッセージについてなら、そのメッセージの「アプリ」→「よろずに聞く」で「要約して」と聞けます。" +
	"会話全体を要約するには、よろずがいるサーバーのチャンネルか、よろずとの DM で /summary を使ってください。"

// SummaryFromHere is the message command 「ここから要約」: the talk of the
// message's channel from that message to now.
func SummaryFromHere(o SummaryOptions) Command {
	o = o.withDefaults()
	return Command{
		Name:    SummaryFromHereName,
		NameJA:  "ここから要約",
		Message: true,
		Run: func(ctx context.Context, req Request) Reply {
			at, ok := snowflakeTime(req.TargetID)
			if !ok {
				return Text("このメッセージの日時を読めませんでした。")
			}
			return o.summarise(ctx, req, req.ChannelID, at, time.Time{})
		},
	}
}

func (o SummaryOptions) withDefaults() SummaryOptions {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return o
}

func (o SummaryOptions) runSummary(ctx context.Context, req Request) Reply {
	channel := req.ChannelID
	if c := req.String("channel"); c != "" {
		channel = c
	}
	since := req.String("since")
	if since == "" {
		since = defaultSince
	}
	p, problem := parseSince(since, o.Now(), o.Location)
	if problem != "" {
		return Text(problem)
	}
	if p.channelID != "" {
		if p.guildID != guildOrMe(req.GuildID) {
			return Text("リンクのメッセージはこのサーバーのものではありません。このサーバーのメッセージのリンクを指定してください。")
		}
		channel = p.channelID
	}
	if channel != req.ChannelID {
		ok := false
		if o.Readers != nil && !req.DM() {
			var err error
			if ok, err = o.Readers.MayRead(ctx, req.GuildID, req.UserID, channel); err != nil {
				o.Log.Error("summary: who may read", "channel_id", channel, "user_id", req.UserID, "err", err)
				return Text("要約できませんでした。しばらくしてからもう一度お試しください。")
			}
		}
		if !ok {
			return Text(fmt.Sprintf("<#%s> はあなたが読めるこのサーバーのチャンネルではないため、要約できません。", channel))
		}
	}
	return o.summarise(ctx, req, channel, p.since, p.until)
}

// summarise answers with the summary of channel in the period, in the
// channel for all to see; anything else only its user sees.
func (o SummaryOptions) summarise(ctx context.Context, req Request, channel string, since, until time.Time) Reply {
	req.Report("履歴を読み込み中…")
	text, summarised, err := o.Summarizer.Summarize(ctx, req.GuildID, channel, since, until, func(done, total int) {
		req.Report(fmt.Sprintf("要約中… %d/%d", done, total))
	})
	if err != nil {
		o.Log.Error("summary", "channel_id", channel, "err", err)
		return Text("要約できませんでした。しばらくしてからもう一度お試しください。")
	}
	return Reply{Text: text, Public: summarised}
}

func guildOrMe(guildID string) string {
	if guildID == "" {
		return "@me"
	}
	return guildID
}

// period is a since: as read: from since to until (zero: now); a message
// link also names its server ("@me" for a DM) and channel.
type period struct {
	since, until       time.Time
	guildID, channelID string
}

var (
	// sinceLink is a message link: https://discord.com/channels/G/C/M.
	sinceLink = regexp.MustCompile(`^<?https?://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/channels/(\d+|@me)/(\d+)/(\d+)>?$`)
	// sinceSpan is an amount and a unit: 30m, 2h, 7d, 90分, 2時間, 3日.
	sinceSpan = regexp.MustCompile(`^(\d{1,4})\s*(m|min|mins|minutes?|分|分間|h|hr|hrs|hours?|時間|d|days?|日|日間)$`)
)

// sinceHelp is what a since: that cannot be read is answered with.
const sinceHelp = "「%s」は期間として読めませんでした。%s" +
	"30m（30分）・2h（2時間）・24h・7d（7日）・today（今日）・yesterday（昨日）、またはメッセージのリンク（https://discord.com/channels/…）で指定してください。"

// parseSince reads since: at now; problem is the answer to give when it
// cannot be read.
func parseSince(s string, now time.Time, loc *time.Location) (p period, problem string) {
	s = strings.TrimSpace(s)
	norm := strings.ToLower(strings.Map(func(r rune) rune {
		if r >= '０' && r <= '９' {
			return r - '０' + '0'
		}
		if r >= 'ａ' && r <= 'ｚ' {
			return r - 'ａ' + 'a'
		}
		return r
	}, s))
	day := func(t time.Time) time.Time {
		t = t.In(loc)
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	}
	switch norm {
	case "today", "今日", "きょう":
		return period{since: day(now)}, ""
	case "yesterday", "昨日", "きのう":
		today := day(now)
		return period{since: today.AddDate(0, 0, -1), until: today}, ""
	}
	if m := sinceLink.FindStringSubmatch(norm); m != nil {
		at, ok := snowflakeTime(m[3])
		if !ok || at.After(now.Add(time.Minute)) {
			return period{}, fmt.Sprintf(sinceHelp, s, "リンクのメッセージIDが正しくありません。")
		}
		return period{since: at, guildID: m[1], channelID: m[2]}, ""
	}
	m := sinceSpan.FindStringSubmatch(norm)
	if m == nil {
		return period{}, fmt.Sprintf(sinceHelp, s, "")
	}
	n, _ := strconv.Atoi(m[1])
	unit := time.Minute
	switch m[2][0] {
	case 'h':
		unit = time.Hour
	case 'd':
		unit = 24 * time.Hour
	}
	switch m[2] {
	case "時間":
		unit = time.Hour
	case "日", "日間":
		unit = 24 * time.Hour
	}
	d := time.Duration(n) * unit
	if n == 0 || d > maxSummaryPeriod {
		return period{}, fmt.Sprintf(sinceHelp, s, "期間は1分から31日までです。")
	}
	return period{since: now.Add(-d)}, ""
}

// discordEpoch is the first millisecond of 2015, the zero of Discord's ids.
const discordEpoch = 1420070400000

// snowflakeTime is when the Discord object with this id was made: ids
// carry their time, so a message link is a point in time too.
func snowflakeTime(id string) (time.Time, bool) {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n>>22 == 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(n>>22) + discordEpoch), true
}
