package chat

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/memory/wordpool"
)

// Route names: what Classify returns and Router.Add takes.
const (
	RouteChat      = "chat" // the fallback, the chat handler
	RouteReminder  = "reminder"
	RouteWeather   = "weather"
	RouteSmalltalk = "smalltalk"
	RouteSummary   = "summary"
	RouteProfile   = "profile"
)

// Classify names the route for text, said at at (the time its words such
// as 明日 are read against), by its words and what they ask for, tried in
// this order of precedence:
//
//  1. reminder: a request to be told or to have something posted, with a
//     time or a repeat the reminder tools' own readers parse, or a request
//     about the reminders set (their list, cancelling one). It comes first
//     because it asks for an action whose subject may be anything, the
//     weather included: 「毎朝7時に天気を教えて」 wants a reminder, not
//     today's forecast.
//  2. profile: a member telling yorozu something about themselves to keep
//     (覚えておいて：私はエビアレルギー, 私の誕生日は3月3日). After reminders,
//     which 「明日9時に会議って覚えといて」 is; before weather, so that
//     「私は雨の日が好きって覚えておいて」 is kept, not forecast.
//  3. weather: a forecast, rain, an umbrella, the temperature or the
//     laundry, for a day or a place. Before small talk, as a concrete
//     question needs the forecast the small-talk handler lacks.
//  4. smalltalk: idleness said as the user's own state or wish (暇だなあ,
//     雑談しよう, I'm bored).
//  5. summary: a request to sum up the talk here (さっきの話まとめて), which
//     reads the channel's history, not a text from elsewhere.
//
// Anything else, and anything in doubt, is chat: the chat handler can reach
// the forecast and the reminder tools itself, so a miss costs a model call,
// never a wrong answer. The words come from the dictionary the word pools
// share (loaded on first use); without it everything is chat.
func Classify(text string, at time.Time) string {
	m := readMessage(text, at)
	switch {
	case m.isReminder():
		return RouteReminder
	case m.isProfile():
		return RouteProfile
	case m.isWeather():
		return RouteWeather
	case m.isSmalltalk():
		return RouteSmalltalk
	case m.isSummary():
		return RouteSummary
	}
	return RouteChat
}

// routeNames are the routes Router.Add takes, in Classify's order.
var routeNames = []string{RouteReminder, RouteProfile, RouteWeather, RouteSmalltalk, RouteSummary}

// message is a text as the route rules read it.
type message struct {
	text  string // as written, for the time readers
	words []word
	at    time.Time
}

// word is one word of the text; ASCII words are lower-cased.
type word struct {
	s    string
	pos  string // the part of speech: 名詞, 動詞, 形容詞, 助詞, …
	sub  string // its subclass: 一般, 固有名詞, 接尾, 副詞可能, …
	sub2 string // the subclass's subclass: 地域 for a place
}

func readMessage(text string, at time.Time) message {
	m := message{text: text, at: at}
	ws := wordpool.Words(text)
	m.words = make([]word, 0, len(ws))
	for _, w := range ws {
		x := word{s: w.Surface}
		if isASCII(x.s) {
			x.s = strings.ToLower(x.s)
		}
		if len(w.POS) > 0 {
			x.pos = w.POS[0]
		}
		if len(w.POS) > 1 {
			x.sub = w.POS[1]
		}
		if len(w.POS) > 2 {
			x.sub2 = w.POS[2]
		}
		if n := len(m.words); n > 0 && joined[m.words[n-1].s+x.s] {
			m.words[n-1] = word{s: m.words[n-1].s + x.s, pos: "名詞", sub: "一般"}
			continue
		}
		if n := len(m.words); n == 1 && m.words[0].s+x.s == "たいくつ" {
			m.words[0] = word{s: "たいくつ", pos: "名詞", sub: "一般"}
			continue
		}
		m.words = append(m.words, x)
	}
	return m
}

// joined are words the dictionary splits in two, put back together:
// リマインド is read as リマ and インド, two places.
var joined = map[string]bool{"リマインド": true, "リマインダー": true, "どうでも": true, "降水確率": true}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// word returns the i-th word, or an empty one past either end.
func (m message) word(i int) word {
	if i < 0 || i >= len(m.words) {
		return word{}
	}
	return m.words[i]
}

// has reports whether one of the words is in set.
func (m message) has(set ...string) bool {
	for _, w := range m.words {
		if slices.Contains(set, w.s) {
			return true
		}
	}
	return false
}

// hasPhrase reports whether the words run in the given order somewhere.
func (m message) hasPhrase(phrase ...string) bool {
	for i := range m.words {
		if i+len(phrase) > len(m.words) {
			return false
		}
		ok := true
		for j, p := range phrase {
			if m.words[i+j].s != p {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// isNoun reports whether w is a noun that names a thing (傘, 子, 日), not a
// suffix, a number or an adjectival stem (大丈夫).
func (w word) isNoun() bool {
	return w.pos == "名詞" && (w.sub == "一般" || w.sub == "サ変接続" || w.sub == "固有名詞")
}

// isEnd reports whether w ends a clause: nothing, punctuation or a symbol.
func (w word) isEnd() bool {
	if w.s == "" || w.pos == "記号" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(w.s)
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// asksHow reports a question for knowledge: how to, which is best.
func (m message) asksHow() bool {
	for _, w := range m.words {
		if w.s == "方" && w.sub == "接尾" || strings.HasSuffix(w.s, "方") && w.pos == "名詞" && !slices.Contains(notWays, w.s) {
			return true // つけ方, 書き方, 読み方
		}
	}
	return m.has("方法", "コツ", "やり方", "仕方", "おすすめ", "オススメ", "レシピ", "違い", "意味")
}

// notWays end in 方 but are no way of doing.
var notWays = []string{"方", "夕方", "朝方", "明け方", "両方", "地方", "片方", "味方", "当方", "先方", "他方", "一方", "貴方", "親方"}
