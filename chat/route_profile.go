package chat

import "slices"

// isProfile: a member telling yorozu something about themselves to keep —
// 覚えておいて：私はエビアレルギー, 僕は猫派って覚えといて, 私の誕生日は3月3日,
// remember that I'm vegetarian — or asking it to keep a fact behind a
// colon (覚えておいて：田中さんは…, which the profile handler then refuses
// as someone else's). Not 覚えてる？ (do you remember), これ覚えておいて
// (a thing, not the member), nor a question about oneself (私の名前は？,
// 私の誕生日は3月3日なんだけど何したらいい？).
func (m message) isProfile() bool {
	if m.asksRemember() {
		return m.saysSelf() || m.has("：", ":")
	}
	return m.statesSelf()
}

// asksRemember reports a request to remember: 覚えといて, 覚えておいて,
// 覚えてね, remember that.
func (m message) asksRemember() bool {
	for i, w := range m.words {
		next, next2 := m.word(i+1), m.word(i+2)
		switch w.s {
		case "覚え", "おぼえ":
			if next.s == "とい" || next.s == "て" && (next2.s == "おい" || m.requestEnds(i+2)) {
				return true
			}
		case "remember":
			prev := m.word(i - 1).s
			if i == 0 || prev == "please" || prev == "," {
				return true
			}
		}
	}
	return false
}

// selfPronouns name the speaker.
var selfPronouns = []string{"私", "わたし", "わたくし", "僕", "ぼく", "俺", "おれ", "あたし", "自分", "i", "my", "me"}

// saysSelf reports whether the member speaks of themselves.
func (m message) saysSelf() bool {
	return m.has(selfPronouns...)
}

// profileNouns are what a member says of themselves (私の誕生日は…).
var profileNouns = []string{"誕生", "誕生日", "名前", "好物", "趣味", "出身", "呼び方", "呼び名", "推し", "職業", "仕事",
	"血液", "アレルギー", "好き", "苦手", "birthday", "name", "hobby", "favorite", "favourite"}

// statesSelf reports a statement, not a question, of the form 私の誕生日は
// 3月3日 or my birthday is March 3.
func (m message) statesSelf() bool {
	first, second := m.word(0), m.word(1)
	noun := 2 // 私 の 誕生日
	if first.s == "my" {
		noun = 1 // my birthday
	} else if !slices.Contains(selfPronouns[:8], first.s) || second.s != "の" {
		return false
	}
	if !slices.Contains(profileNouns, m.word(noun).s) {
		return false
	}
	for _, w := range m.words[noun+1:] {
		switch {
		case w.s == "？" || w.s == "?" || w.s == "か" && w.pos == "助詞":
			return false
		case w.pos == "助詞" && w.sub == "接続助詞" && w.s != "て":
			return false // …だけど, …だから: a question or a request follows
		case slices.Contains([]string{"何", "なに", "いつ", "どこ", "どう", "誰", "what", "when", "where", "how", "who"}, w.s):
			return false
		}
	}
	return true
}
