package chat

// isProfile: a member asking yorozu to keep something about themselves —
// 覚えておいて：私はエビアレルギー, 僕は猫派って覚えといて, remember that
// I'm vegetarian — or a fact behind a colon (覚えておいて：田中さんは…,
// which the profile handler then refuses as someone else's). Not 覚えてる？
// (do you remember), これ覚えておいて (a thing, not the member), nor a
// statement without the request (私の誕生日は3月3日): the chat handler
// answers that, and its model may offer to keep it (offer_profile_fact),
// which the member then accepts or not.
func (m message) isProfile() bool {
	return m.asksRemember() && (m.saysSelf() || m.has("：", ":"))
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
