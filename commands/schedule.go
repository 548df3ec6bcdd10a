package commands

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/yorozu-bot/yorozu/db"
)

// Schedule is /schedule add|list|cancel|pause|resume: the server's
// scheduled posts, whose every occurrence runs the chat pipeline with a
// prompt in a channel and posts its answer. Making and changing them needs
// Manage Channels; listing them does not.
func Schedule(r Reminders, log *slog.Logger) Command {
	sub := func(name, en, ja string, req Permission, opts ...Option) Option {
		return Option{Type: Subcommand, Name: name, Description: en, DescriptionJA: ja, Require: req, Options: opts}
	}
	post := Option{
		Type: Integer, Name: "id", Required: true, MinValue: idOption().MinValue,
		Description: "Scheduled post number (from /schedule list)", DescriptionJA: "定期投稿の番号（/schedule list の #）",
	}
	return Command{
		Name:          "schedule",
		Description:   "Scheduled posts in this server",
		DescriptionJA: "このサーバーの定期投稿",
		Refusal:       "定期投稿を作ったり変えたりするには、チャンネルの管理権限が必要です。",
		Options: []Option{
			sub("add", "Post the answer to a prompt here on a schedule (every Friday at 17:00)",
				"決まった時刻にこのチャンネルへ投稿（毎週金曜17時）", ManageChannels,
				Option{Type: String, Name: "when", Required: true, MaxLength: 200,
					Description: "When: 毎週金曜17時, 毎朝8時, every Monday at 9", DescriptionJA: "いつ: 毎週金曜17時、毎朝8時、平日9時"},
				Option{Type: String, Name: "prompt", Required: true, MaxLength: maxContentRunes,
					Description: "What the bot should write (今週の話題をまとめて)", DescriptionJA: "投稿する内容の指示（今週の話題をまとめて）"},
				Option{Type: String, Name: "kind",
					Description:   "post: the answer to the prompt; digest: a summary of what members said here since the previous post",
					DescriptionJA: "post: 指示への答えを投稿。digest: 前回からこのチャンネルで話されたことをまとめて投稿",
					Choices: []Choice{
						{Name: "post", NameJA: "post: 指示への答え", Value: db.KindPost},
						{Name: "digest", NameJA: "digest: 話題のまとめ", Value: db.KindDigest},
					}}),
			sub("list", "List this server's scheduled posts", "このサーバーの定期投稿を表示", 0),
			sub("cancel", "Cancel a scheduled post", "定期投稿を取り消す", ManageChannels, post),
			sub("pause", "Pause a scheduled post", "定期投稿を一時停止", ManageChannels, post),
			sub("resume", "Resume a paused scheduled post", "一時停止した定期投稿を再開", ManageChannels, post),
		},
		Run: func(ctx context.Context, req Request) Reply {
			return Text(scheduleReply(ctx, r, req, log))
		},
	}
}

func scheduleReply(ctx context.Context, r Reminders, req Request, log *slog.Logger) string {
	if req.UserID == "" {
		return unsupportedReply
	}
	if req.DM() {
		return "定期投稿はサーバーのチャンネルで使えます。DM では `/remind add` をお使いください。"
	}
	switch req.Subcommand {
	case "add":
		switch kind := req.String("kind"); kind {
		case "", db.KindPost, db.KindDigest:
			if kind == "" {
				kind = db.KindPost
			}
			return remindAdd(ctx, r, req, kind, log)
		default:
			return fmt.Sprintf("kind は post（指示への答え）か digest（話題のまとめ）です（送られたのは %q）。", kind)
		}
	case "list":
		posts, err := r.Posts(ctx, req.GuildID)
		if err != nil {
			log.Error("/schedule list", "guild_id", req.GuildID, "err", err)
			return "定期投稿を読み込めませんでした。しばらくしてからもう一度お試しください。"
		}
		if len(posts) == 0 {
			return "このサーバーに定期投稿はありません。`/schedule add` で作れます。"
		}
		return listText(fmt.Sprintf("このサーバーの定期投稿（%d/%d件）:\n", len(posts), r.MaxPostsPerSpace()), r, posts)
	case "cancel", "pause", "resume":
		return scheduleChange(ctx, r, req, log)
	}
	return unsupportedReply
}

// scheduleChange cancels, pauses or resumes a post of this server: the
// caller has Manage Channels, so any of them.
func scheduleChange(ctx context.Context, r Reminders, req Request, log *slog.Logger) string {
	id := req.Int("id")
	who := db.Owner{UserID: req.UserID, Guild: req.GuildID}
	rem, err := r.Get(ctx, who, id)
	if err == nil && !db.PostKind(rem.Kind) {
		err = db.ErrNotFound
	}
	if err == nil {
		switch req.Subcommand {
		case "cancel":
			rem, err = r.CancelInGuild(ctx, req.GuildID, id)
		case "pause":
			rem, err = r.Pause(ctx, who, id)
		default:
			rem, err = r.Resume(ctx, who, id)
		}
	}
	if errors.Is(err, db.ErrNotFound) {
		return fmt.Sprintf("#%d の定期投稿は見つかりません。`/schedule list` で番号を確認してください。", id)
	}
	if text, refused := changeRefusal(rem, id, err); refused {
		if text == "" {
			log.Error("/schedule "+req.Subcommand, "user_id", req.UserID, "reminder_id", id, "err", err)
			return "変更できませんでした。しばらくしてからもう一度お試しください。"
		}
		return text
	}
	switch req.Subcommand {
	case "cancel":
		return fmt.Sprintf("定期投稿 #%d（%s）を取り消しました。", rem.ID, rem.Content)
	case "pause":
		return fmt.Sprintf("定期投稿 #%d（%s）を一時停止しました。`/schedule resume id:%d` で再開できます。", rem.ID, rem.Content, rem.ID)
	}
	return fmt.Sprintf("定期投稿 #%d（%s）を再開しました。次回は <t:%d:F> です。", rem.ID, rem.Content, rem.DueAt.Unix())
}
