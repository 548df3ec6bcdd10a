package chat

import (
	"slices"
	"strings"

	"github.com/yorozu-bot/yorozu/recur"
	"github.com/yorozu-bot/yorozu/tools/reminder"
)

// isReminder: a request to be told, woken or to have something posted,
// with a time or a repeat, or a request about the reminders set. The time
// is read by the reminder tools' own readers (reminder.ParseWhen,
// recur.Parse), so a message is routed here only when the tools will
// understand its time too; 毎日 or 平日 in a question is no request.
func (m message) isReminder() bool {
	if m.aboutReminders() {
		return true
	}
	if m.asksToRemind() {
		return true
	}
	strong, weak := m.asksToBeTold()
	if !strong && !weak {
		return false
	}
	// reminder.ParseWhen is read first as it costs a fraction of
	// recur.Parse, which is asked only when the answer still depends on it.
	when, ok := reminder.ParseWhen(m.text, m.at)
	if strong {
		return ok || m.repeats()
	}
	if m.asksHow() {
		return false
	}
	// 教えて also asks to be taught (「家計簿のつけ方教えて」) or told now:
	// 「明日の天気教えて」 names a day, not when to tell. A clock time, a
	// span from now or a time said with に (9時, 1時間後, 明後日の朝に) says
	// when to speak up; a repeat, when what is told changes each time
	// (毎朝の天気を教えて).
	if ok && (when.HasClock || when.Relative || m.timeWithNi()) {
		return true
	}
	return m.has(changing...) && m.repeats()
}

// repeats reports whether the words name a repeat that recur.Parse reads.
func (m message) repeats() bool {
	_, err := recur.Parse(m.text, m.at, m.at.Location())
	return err == nil
}

// changing are things told anew each time, so that 「毎朝の天気を教えて」
// asks for them every morning, while 「毎朝のルーティン教えて」 asks once.
var changing = []string{"天気", "予報", "天気予報", "気温", "ニュース", "予定", "運勢", "weather", "news"}

// timeWithNi reports a time followed by に, which says when: 朝に, 3日後に,
// 土曜に.
func (m message) timeWithNi() bool {
	for i, w := range m.words {
		if m.word(i+1).s != "に" {
			continue
		}
		if slices.Contains(dayWords, w.s) || strings.HasSuffix(w.s, "曜") || strings.HasSuffix(w.s, "曜日") ||
			w.s == "月末" || w.sub == "接尾" && (w.s == "時" || w.s == "時半" || w.s == "分" || w.s == "後" || w.s == "日" || w.s == "末") {
			return true
		}
	}
	return false
}

// asksToRemind reports 「リマインドして」 said outright, a request with no
// other meaning, even before its time is said (the reminder handler asks
// for it); not 「リマインドしてくれるアプリある？」.
func (m message) asksToRemind() bool {
	for i, w := range m.words {
		if w.s != "リマインド" {
			continue
		}
		next := m.word(i + 1)
		if next.s == "お願い" || next.s == "よろしく" {
			return true
		}
		if next.s == "し" && m.word(i+2).s == "て" {
			after := m.word(i + 3)
			return after.isEnd() || slices.Contains([]string{"ね", "よ", "ください", "下さい", "ほしい", "欲しい", "お願い", "おねがい"}, after.s)
		}
	}
	return false
}

// asksToBeTold reports a request to be told or to have something posted:
// strong when the words can only mean later (リマインド, 知らせて,
// 起こして, remind me), weak for 教えて and tell me, which ask for an
// answer now as often.
func (m message) asksToBeTold() (strong, weak bool) {
	for i, w := range m.words {
		next, next2 := m.word(i+1), m.word(i+2)
		switch w.s {
		case "リマインド", "知らせ", "お知らせ", "起こし", "remind", "notify", "ping", "wake":
			strong = true
		case "通知":
			strong = strong || next.s == "し" // not 通知され, a notice that came
		case "声":
			strong = strong || next.s == "かけ" || next.s == "掛け"
		case "投稿":
			// 投稿して, not 投稿しても (may I post) or 投稿する (when I post).
			strong = strong || next.s == "し" && next2.s == "て" && m.word(i+3).s != "も"
		case "post":
			// Asked (post…, please post, can you post), not I'll post.
			prev := m.word(i - 1).s
			strong = strong || i == 0 || prev == "please" || prev == "you"
		case "忘れ":
			strong = strong || next.s == "ない" && (next2.s == "よう" || next2.s == "ように")
		case "覚え":
			// 覚えといて, 覚えておいて; not 覚えてる？ (do you remember).
			strong = strong || next.s == "とい" || next.s == "てお" || next.s == "て" && (next2.s == "おい" || m.requestEnds(i+2))
		case "教え", "聞い":
			// 教えて, 聞いてね; not 教えてもらった or 聞いてみる. What is to
			// be said, quoted (ゴミの日だよって教えて), asks to be told it later.
			if (next.s == "て" || next.s == "てね") && m.requestEnds(i+2) {
				quoted := m.word(i-1).s == "って" || m.word(i-1).s == "と"
				strong = strong || quoted
				weak = weak || !quoted
			}
		case "アラーム", "アラームセット":
			// An alarm to set or sound (アラームかけて, 7時に設定して), not
			// one that did not ring.
			strong = strong || w.s == "アラームセット" || m.has("かけ", "掛け", "鳴らし", "セット", "設定")
		case "tell", "let":
			weak = weak || next.s == "me"
		case "set":
			// set a reminder, set an alarm.
			strong = strong || (next.s == "a" || next.s == "an") && (next2.s == "reminder" || next2.s == "alarm")
		}
	}
	return strong, weak
}

// aboutReminders reports a request about the reminders or scheduled posts
// already set: to list, show or cancel them.
func (m message) aboutReminders() bool {
	named := m.has("リマインド", "リマインダー", "reminder", "reminders") || m.hasPhrase("定期", "投稿")
	return named && m.has("一覧", "見せ", "確認", "取り消し", "取り消", "消し", "キャンセル", "削除", "止め", "やめ",
		"list", "show", "cancel", "delete", "remove", "stop")
}

// requestEnds reports whether the words from i end a request: nothing
// more, or ね, ください, くれる？, ほしい, お願い.
func (m message) requestEnds(i int) bool {
	w := m.word(i)
	if w.isEnd() {
		return true
	}
	return slices.Contains([]string{"ね", "よ", "ー", "ください", "下さい", "くれ", "くれる", "ほしい", "欲しい",
		"もらえる", "もらえ", "お願い", "おねがい", "くん", "ちょうだい"}, w.s)
}
