package commands

import (
	"context"
	"fmt"
	"time"
)

// /channel log on|off: the channel log (every member's message kept, to be
// summarised and searched), and /forget me.

// ChannelLogs turns channels' logs on and off and forgets a member's
// logged messages; *chanlog.Log satisfies it.
type ChannelLogs interface {
	// Set turns the log of channelID (a thread when parentID is set) on or
	// off and applies it at once.
	Set(ctx context.Context, guildID, channelID, parentID string, on bool, by string) error
	// Logged reports whether the channel's log is on.
	Logged(guildID, channelID, parentID string) bool
	// Forget deletes every logged message authorID wrote in space and
	// returns how many.
	Forget(ctx context.Context, space, authorID string) (int64, error)
}

// notLogManagerReply refuses /channel log to someone without Manage
// Channels.
const notLogManagerReply = "このチャンネルの発言の記録を見たり切り替えたりするには、このチャンネルの「チャンネルの管理」権限が必要です。あなたにはこの権限がありません。"

// logOption declares /channel log.
func logOption() Option {
	return Option{
		Type: Subcommand, Name: "log", Require: ManageChannels, Refusal: notLogManagerReply,
		Description:   "Keep every message of this channel (and its threads) to summarise and search",
		DescriptionJA: "このチャンネル（とスレッド）の発言をすべて記録し、要約や検索に使うか",
		Options: []Option{{
			Type: String, Name: "value",
			Description:   "on or off; leave out to see whether it is on",
			DescriptionJA: "on・off。省くといまの状態を表示",
			Choices: []Choice{
				{Name: "on", NameJA: "on: 記録する", Value: "on"},
				{Name: "off", NameJA: "off: 記録しない", Value: "off"},
			},
		}},
	}
}

// logReply answers /channel log; turning the log on is announced to the
// whole channel.
func (c *Channels) logReply(ctx context.Context, req Request) Reply {
	if req.DM() {
		return Text("DM の会話は記録しません。チャンネルの記録はサーバーのチャンネルで設定してください。")
	}
	if c.Logs == nil {
		return Text(unsupportedReply)
	}
	p, _ := c.placeOf(ctx, req)
	switch req.String("value") {
	case "":
		if c.Logs.Logged(p.guildID, p.channelID, p.parentID) {
			return Text(fmt.Sprintf("%sの発言は記録されています（保存期間 %s）。止めるには `/channel log value: off` を送ってください。", p.name(), days(c.LogRetention)))
		}
		return Text(fmt.Sprintf("%sの発言は記録されていません。", p.name()))
	case "on":
		if err := c.Logs.Set(ctx, p.guildID, p.channelID, p.parentID, true, req.UserID); err != nil {
			c.Log.Error("/channel log on", "guild_id", p.guildID, "channel_id", p.channelID, "err", err)
			return Text(settingsFailedReply)
		}
		return Reply{Text: logNotice(p.name(), c.LogRetention), Public: true}
	case "off":
		if err := c.Logs.Set(ctx, p.guildID, p.channelID, p.parentID, false, req.UserID); err != nil {
			c.Log.Error("/channel log off", "guild_id", p.guildID, "channel_id", p.channelID, "err", err)
			return Text(settingsFailedReply)
		}
		return Text(fmt.Sprintf("%sの記録を止めました。記録済みの発言は保存期間（%s）が過ぎると消えます。すぐに消すには管理ページを使ってください。", p.name(), days(c.LogRetention)))
	}
	return Text(fmt.Sprintf("value は on か off です（送られたのは %q）。", req.String("value")))
}

// logNotice tells the channel what turning its log on means: what is kept,
// for how long, how to opt out and who can turn it off.
func logNotice(where string, retention time.Duration) string {
	return fmt.Sprintf("📝 %sの発言の記録を始めました。\n"+
		"・記録するもの: このチャンネルとスレッドでの発言（書いた人の名前、時刻、本文、返信先、添付ファイルの名前）。要約や「先週の集合場所どこだっけ？」のような検索に使います。\n"+
		"・保存期間: %s。過ぎた発言は自動で消えます。編集・削除した発言は記録でも書き換わり、消えます。\n"+
		"・自分の発言を記録から消すには `/forget confirm: True me: True` を送ってください（このサーバーで記録されたあなたの発言がすべて消えます）。\n"+
		"・記録を止められるのは「チャンネルの管理」権限を持つ人で、`/channel log value: off` で止まります。",
		where, days(retention))
}

// days says a retention in days (or hours, under a day).
func days(d time.Duration) string {
	if d <= 0 {
		return "無期限"
	}
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%d 日", d/(24*time.Hour))
	}
	return fmt.Sprintf("%d 時間", d/time.Hour)
}

// forgetMeReply answers /forget me: the member's logged messages in this
// server are deleted.
func forgetMeReply(ctx context.Context, logs ChannelLogs, req Request) (string, error) {
	if req.DM() {
		return "DM の発言は記録していません。サーバーのチャンネルで使ってください。", nil
	}
	space := "guild:" + req.GuildID
	n, err := logs.Forget(ctx, space, req.UserID)
	if err != nil {
		return "ごめんなさい、記録を消せませんでした。しばらくしてからもう一度お試しください。", fmt.Errorf("forget logged messages of %s in %s: %w", req.UserID, space, err)
	}
	if n == 0 {
		return "このサーバーで記録されたあなたの発言はありません。", nil
	}
	return fmt.Sprintf("このサーバーで記録されたあなたの発言 %d 件を記録から消しました。", n), nil
}
