package chat

import "slices"

// isSummary: a request to sum up the talk here — さっきの話まとめて,
// 今の話を要約して, ここまでの議論を整理して, summarize the conversation —
// not a text brought from elsewhere (この本の要約を教えて, この記事を要約して),
// nor how to summarise (会話を要約するコツ), nor the last answer made
// shorter (短くまとめて), which the chat handler has in its context.
func (m message) isSummary() bool {
	if m.asksHow() || m.has("苦手", "得意", "練習") || m.has(summaryElsewhere...) {
		return false
	}
	verb, talk := false, false
	for i, w := range m.words {
		switch {
		case slices.Contains(summaryVerbs, w.s):
			verb = true
		case w.s == "sum" && m.word(i+1).s == "up", w.s == "catch" && m.word(i+1).s == "me" && m.word(i+2).s == "up":
			verb, talk = true, true
		case slices.Contains(summaryTalk, w.s):
			talk = true
		}
	}
	return verb && talk
}

// summaryVerbs ask for a summary, as the dictionary reads them.
var summaryVerbs = []string{"まとめ", "まとめて", "まとめる", "まとめよ", "纏め", "要約", "整理", "summarize", "summarise", "summary", "recap", "tl;dr", "tldr"}

// summaryTalk name the talk itself.
var summaryTalk = []string{"話", "会話", "議論", "流れ", "話題", "やりとり", "やり取り", "話し合い", "チャット", "チャンネル", "スレッド", "ログ",
	"conversation", "chat", "discussion", "talk", "channel", "thread"}

// summaryElsewhere name a text from elsewhere, which chat (with its web
// tools) summarises.
var summaryElsewhere = []string{"本", "記事", "小説", "映画", "動画", "論文", "ニュース", "文章", "url", "pdf", "article", "book", "video",
	"ページ", "サイト", "新聞", "毎日", "毎週", "毎朝", "毎晩", "毎月"}
