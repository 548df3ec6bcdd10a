package chat

// isSmalltalk: idleness said as the user's own state or wish — 暇だなあ,
// 退屈すぎる, 雑談しよう, どうでもいい話して, I'm bored, let's chat — not
// the mood word as a topic (休暇, 暇人って英語で, 退屈な会議, 雑談が苦手,
// 暇つぶしにおすすめのアプリ).
func (m message) isSmalltalk() bool {
	if m.asksHow() || m.has("英語", "語源", "苦手", "漢字") {
		return false
	}
	for i, w := range m.words {
		next := m.word(i + 1)
		switch w.s {
		case "暇", "ひま", "ヒマ", "退屈", "たいくつ":
			if m.moodSaid(i) {
				return true
			}
		case "暇人":
			// 暇人です: I am one; not 暇人って (the word).
			if next.s == "です" || next.s == "だ" || next.s == "なう" || next.isEnd() {
				return true
			}
		case "暇つぶし":
			// Passing the time together, not something to pass it with.
			if m.has("付き合っ", "付き合", "話し", "話そ", "構っ") {
				return true
			}
		case "雑談":
			// 雑談しよう, 雑談付き合って; not 雑談力 or 雑談が苦手.
			// The dictionary reads 雑談でもしよっか as 雑談/で/もし/よっ/か.
			if next.s == "し" || next.s == "しよ" || next.s == "付き合っ" || next.s == "したい" || next.isEnd() ||
				next.s == "で" && (m.word(i+2).s == "もし" || m.word(i+2).s == "も") {
				return true
			}
		case "話", "話し":
			// どうでもいい話しよう / して; not どうでもいい話で盛り上がる.
			if m.word(i-1).s == "いい" && m.word(i-2).s == "どうでも" && (w.s == "話し" || next.s == "し" || next.s == "しよ" || next.isEnd()) {
				return true
			}
		case "bored":
			// Not bored of my job (a question about the job).
			if next.s != "of" && next.s != "with" {
				return true
			}
		case "chat":
			if m.word(i-1).s == "let's" || m.word(i-1).s == "s" || m.word(i-1).s == "just" {
				return true
			}
		case "small":
			if next.s == "talk" {
				return true
			}
		}
	}
	return false
}

// moodSaid reports whether the mood word at i is said of the speaker: at
// the end, or followed by a copula, an intensifier or a verb (暇だ, 暇すぎる,
// 暇してる, 暇になった, 暇な人いる？), not as part of a compound (暇人),
// describing a thing (退屈な会議) or denied (暇がない).
func (m message) moodSaid(i int) bool {
	next, next2 := m.word(i+1), m.word(i+2)
	switch {
	case m.word(i-1).s == "「", next.s == "って", next.s == "と":
		return false // the word itself: 「暇」の語源, 暇って漢字で
	case next.isEnd(), next.s == "ー", next.s == "〜":
		return true
	case next.s == "が" || next.s == "も":
		return next2.s != "ない" && next2.s != "なく" && next2.s != "なかっ" // 暇がない: busy
	case next.s == "な" || next.s == "の":
		// 暇な人いる？ asks who would chat, 暇なので says why; 退屈な会議
		// is a kind of meeting.
		return next2.s == "人" || next2.s == "ん" || next2.s == "の" || next2.s == "ので"
	case next.pos == "名詞":
		return false
	}
	return true
}
