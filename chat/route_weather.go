package chat

import (
	"slices"
	"strings"
)

// Weather words, as whole words: nouns of the forecast and the sky, the
// adjectives and verbs of the temperature, rain and laundry, and their
// English. 梅雨, 雨漏り, 雨宮 and 洗濯機 are words of their own.
var (
	weatherNouns = []string{"天気", "予報", "天気予報", "週間予報", "天候", "気温", "降水", "雨", "雪", "晴れ", "曇り",
		"くもり", "台風", "風", "雷", "傘", "折りたたみ傘", "洗濯日和", "日和", "降水確率",
		"半袖", "長袖", "上着", "コート", "厚着", "薄着",
		"weather", "forecast", "temperature", "rain", "raining", "snow", "snowing", "umbrella", "laundry", "sunny"}
	// Verb stems as written (the dictionary keeps no base forms).
	weatherVerbs = []string{"降る", "降り", "降っ", "降ら", "晴れる", "晴れ", "積もる", "積もっ", "積もり", "やむ", "止む",
		"やん", "冷える", "冷え", "乾く", "乾か", "乾い", "乾き", "干せる", "干せ", "干し", "干す", "干さ"}
	weatherAdjectives = []string{"寒い", "寒く", "寒かっ", "寒", "暑い", "暑く", "暑", "蒸し暑い", "蒸し暑く",
		"暖かい", "暖かく", "あったかい", "涼しい", "涼しく", "cold", "hot", "warm", "chilly"}
	// Words that ask about a day or a time of it.
	dayWords = []string{"今日", "明日", "あした", "明後日", "あさって", "きょう", "今夜", "今晩", "今朝", "週末", "今週", "来週", "午後",
		"午前", "夕方", "朝", "夜", "昼", "帰り", "今", "土日", "週間",
		"today", "tomorrow", "tonight", "weekend", "morning", "afternoon", "evening"}
	weekdaysEn = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
	// Words that ask for the forecast: need it, will it, may I hang out,
	// outside.
	forecastAsks = []string{"いる", "要る", "いり", "持っ", "持ってっ", "教え", "見せ", "知り", "大丈夫", "何度", "外", "outside",
		"ふる", "ふっ", "ふり", "ふら",
		"need", "will", "going", "hang", "bring"}
)

// isWeather: a question about the forecast — rain, an umbrella, the
// temperature, the laundry — for a day or a place, or asked outright
// (傘いる？, 天気どう？). A weather word counts only when it is what is
// asked about: not naming something else (天気の子, 雨の日に聴きたい曲,
// 傘の骨, 寒い地域, 天気アプリ), and not in a question for knowledge
// (天気予報ってどうやって作られてるの？).
func (m message) isWeather() bool {
	if m.asksHow() || m.has("仕組み", "作者", "監督", "関係", "説明") {
		return false
	}
	said := false
	for i := range m.words {
		if m.weatherWordAt(i) {
			said = true
			break
		}
	}
	if !said || m.remarks() {
		return false
	}
	if m.onlyWeatherNouns() {
		return true // 天気予報, weather: asked by naming it
	}
	for i, w := range m.words {
		switch {
		case slices.Contains(dayWords, w.s), w.sub == "固有名詞" && w.sub2 == "地域", strings.HasSuffix(w.s, "曜"),
			strings.HasSuffix(w.s, "曜日"), slices.Contains(weekdaysEn, w.s),
			slices.Contains(forecastAsks, w.s), slices.Contains(weatherVerbs, w.s):
			return true
		case w.s == "どう" && m.word(i+1).s != "やっ":
			return true
		case w.s == "it" && (m.word(i-1).s == "will" || m.word(i-1).s == "is"):
			return true
		}
	}
	return false
}

// weatherWordAt reports whether the word at i is a weather word said of
// the weather itself.
func (m message) weatherWordAt(i int) bool {
	w, next := m.words[i], m.word(i+1)
	if isASCII(w.s) {
		// The dictionary reads every English word as a name; the cues of
		// isWeather carry English alone.
		return slices.Contains(weatherNouns, w.s) || slices.Contains(weatherAdjectives, w.s)
	}
	switch {
	case w.s == "洗濯":
		// 洗濯物, 洗濯日和, 洗濯できる; not 洗濯機 or 洗濯ネット.
		return next.s == "物" || next.s == "日和" || next.pos == "動詞"
	case w.s == "何":
		// 何度 (the temperature), not 何度も (how many times).
		return next.s == "度" && m.word(i+2).s != "も" && m.word(i+2).s != "目"
	case w.s == "布団":
		return slices.Contains(weatherVerbs, next.s)
	case slices.Contains(weatherNouns, w.s):
		// 雨だから…: the weather is the reason for another question.
		return !m.modifies(i) && !(next.s == "だ" && m.word(i+2).s == "から") && next.s != "なので" && !m.conditional(i+1) &&
			!m.conditionalAfter(i)
	case slices.Contains(weatherAdjectives, w.s):
		// 寒い地域 names a kind of place, 寒さ対策 a topic; 明日寒い？ asks.
		return !next.isNoun() && next.s != "さ" && !m.conditional(i+1)
	case slices.Contains(weatherVerbs, w.s):
		// 冷えそう, 雨降る: the verb alone says it; not 冷え性.
		return (!next.isNoun() || next.s == "そう") && !m.conditional(i+1)
	}
	return false
}

// conditional reports a condition starting at i (降ったら, 寒ければ, 雨なら):
// the weather is then the premise of another question.
func (m message) conditional(i int) bool {
	switch m.word(i).s {
	case "たら", "ば", "なら", "だったら":
		return true
	}
	return false
}

// conditionalAfter reports the noun at i as the subject of a condition:
// 雨が降ったら.
func (m message) conditionalAfter(i int) bool {
	return m.word(i+1).s == "が" && m.word(i+2).pos == "動詞" && m.conditional(i+3)
}

// modifies reports whether the noun at i describes another noun — 天気の子,
// 雨の日, 傘の骨, 天気アプリ, rain check — rather than being asked about.
func (m message) modifies(i int) bool {
	next := m.word(i + 1)
	if (next.s == "が" || next.s == "の") && (m.word(i+2).pos == "形容詞" || m.word(i+2).pos == "動詞") && m.word(i+3).pos == "名詞" {
		return true // 天気がいい日, 雨の降る夜: a clause describing a noun
	}
	if next.s == "の" {
		after := m.word(i + 2)
		return after.pos == "名詞" && after.sub != "数" && !slices.Contains(weatherNouns, after.s)
	}
	if next.pos == "名詞" && next.sub == "接尾" && next.s != "そう" && next.s != "中" {
		return true // 天気図, 雨具: a compound naming something else
	}
	return next.isNoun() && !slices.Contains(weatherNouns, next.s) && !slices.Contains(dayWords, next.s)
}

// remarks reports a remark on the weather rather than a question:
// 今日はいい天気だね.
func (m message) remarks() bool {
	return (m.hasPhrase("いい", "天気") || m.hasPhrase("良い", "天気")) && !m.has("？", "?", "か", "かな")
}

// onlyWeatherNouns reports a message that is weather nouns and nothing
// else but a topic particle and punctuation: 天気予報, 天気は？, weather?
func (m message) onlyWeatherNouns() bool {
	for _, w := range m.words {
		if !w.isEnd() && !slices.Contains(weatherNouns, w.s) && w.s != "は" && w.s != "って" {
			return false
		}
	}
	return len(m.words) > 0
}
