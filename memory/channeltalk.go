package memory

import (
	"strings"

	"github.com/yorozu-bot/yorozu/memory/talk"
)

// TalkShare is the most of the token budget the channel's recent talk may
// use: it never takes more, even when other layers leave room, so a busy
// channel cannot crowd out the conversation's own memory.
const TalkShare = 0.25

// talkTitle heads the channel's talk. It says the lines were not addressed
// to yorozu, so the model reads them as what was said around the question,
// not as requests to carry out.
const talkTitle = "## チャンネルの最近の会話（よろず宛てではない発言を含む。前回のよろずの返答のあと、古い順）\n" +
	"この質問の前にチャンネルで交わされた発言です。質問が「今の話」「さっきの話」などを指すときはこれを使ってください。"

// WithTalk puts what members said in the channel since yorozu last
// answered there (oldest first, as talk.Buffer.Since gives it) into the
// context, just before the user's message, within TalkShare of the budget;
// the oldest give way first.
func WithTalk(msgs []talk.Message) ContextOption {
	return func(e *contextExtras) { e.talk = msgs }
}

func (m *Memory) talkLayer(msgs []talk.Message) layer {
	l := layer{title: talkTitle, keepTail: true}
	for _, t := range msgs {
		it := t.At.In(m.opts.Location).Format("15:04") + " " + t.Author + ": " + strings.TrimSpace(t.Text)
		l.items = append(l.items, it)
		l.tokens = append(l.tokens, EstimateTokens(it)+1)
	}
	return l
}
