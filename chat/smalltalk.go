package chat

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
)

// TipPoster writes one tip on a topic and posts it to the tips channel;
// *scheduler.Tips satisfies it. Enabled says whether a tips channel is set
// now (the admin page can set or clear it while yorozu runs).
type TipPoster interface {
	Enabled() bool
	Post(ctx context.Context, topic string) (string, error)
}

// TopicFinder finds a topic related to what the user said, from the tags of
// what was said lately in the space ("" when there is none); *memory.Memory
// satisfies it.
type TopicFinder interface {
	RelatedTopic(ctx context.Context, space memory.Space, text string) (string, error)
}

// tipTimeout bounds the tip posted after a small-talk answer.
const tipTimeout = 2 * time.Minute

// Smalltalk answers idle chatter lightly on a topic related to what was
// said, points to the useless tips, and posts one tip on that topic.
type Smalltalk struct {
	Chat   *Conversation // required; its System text is kept and extended
	Tips   TipPoster     // nil or not Enabled: no tip is posted
	Topics TopicFinder   // nil: the tip's topic is left to the tips job
	Logger *slog.Logger
}

// Handle answers req, then posts the tip. The answer is complete (streamed
// and recorded) before the tip is written, so the user never waits on it.
// The topic is found beside the context's reads.
func (s *Smalltalk) Handle(ctx context.Context, req Request, emit func(llm.Event) error) error {
	tips := s.Tips != nil && s.Tips.Enabled()
	topic := "" // set by the aside, read once Handle has its text
	system := func(ctx context.Context) string {
		if s.Topics != nil {
			var err error
			if topic, err = s.Topics.RelatedTopic(ctx, req.space(), req.Text); err != nil {
				s.logger().Warn("small-talk topic", "session", req.Session, "err", err)
			}
		}
		return smalltalkSystem(topic, tips)
	}
	if err := s.Chat.withAside(system).Handle(ctx, req, emit); err != nil {
		return err
	}
	if !tips {
		return nil
	}
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tipTimeout)
	defer cancel()
	if _, err := s.Tips.Post(tctx, topic); err != nil {
		// The answer is out; a missing tip (quiet hour, repeats, Discord)
		// is worth a warning, not a failed turn.
		s.logger().Warn("post small-talk tip", "topic", topic, "err", err)
	}
	return nil
}

// smalltalkSystem is the small-talk route's system text for a topic ("":
// none found), telling of the tip when one will be posted.
func smalltalkSystem(topic string, tips bool) string {
	system := "雑談モードです。肩の力を抜いて、1〜3文で軽く楽しく返してください。"
	if topic != "" {
		system += fmt.Sprintf("話題に困ったら、最近の会話に出た「%s」の話を振ってもかまいません。", topic)
	}
	if tips {
		about := "話題"
		if topic != "" {
			about = fmt.Sprintf("「%s」", topic)
		}
		system += fmt.Sprintf("返事の最後に、%sにまつわる「どうでもいいTips」をTipsチャンネルに投稿しておくね、と一言添えてください。Tipsの中身はここでは書かないこと。", about)
	}
	return system
}

func (s *Smalltalk) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}
