package reminder

import (
	"context"
	"errors"

	"github.com/yorozu-bot/yorozu/db"
)

// PostName is the tool that schedules a post in the caller's channel.
const PostName = "create_scheduled_post"

type postArgs struct {
	Prompt string     `json:"prompt" jsonschema_description:"what the bot is asked each time, without the schedule, as the user would ask it (「毎週金曜17時にこのチャンネルで今週の話題をまとめて投稿して」: 今週の話題をまとめて); the bot's answer is posted in this channel"`
	Repeat repeatArgs `json:"repeat" jsonschema_description:"when it is posted"`
	Digest bool       `json:"digest,omitempty" jsonschema_description:"true when each post is to summarise what members said in this channel since the previous post (今日の話題をまとめて, 今週の話題をまとめて, 1日の話をまとめて): the channel's talk is read and summarised with links to the messages, and a quiet period posts nothing"`
}

func createPost(ctx context.Context, svc Service, a postArgs) (string, error) {
	c, err := caller(ctx)
	if err != nil {
		return "", err
	}
	switch {
	case c.GuildID == "":
		return "", errors.New("a scheduled post belongs to a server channel, and this is a direct message: tell the user to ask in the server channel where it should be posted (a reminder with create_reminder works here)")
	case !c.ManageChannels:
		return "", errors.New("the user does not have the Manage Channels permission in this channel (or it is not known), which a scheduled post needs: do not retry; tell the user that a scheduled post needs the Manage Channels permission in this channel, and that if they have it they can set it up with /schedule add (a reminder to themselves with create_reminder needs no permission)")
	}
	s := schedule{tool: PostName, kind: db.KindPost, what: "scheduled post", content: a.Prompt, repeat: a.Repeat}
	if a.Digest {
		s.kind, s.what = db.KindDigest, "digest"
	}
	return createSchedule(ctx, svc, c, s)
}
