package weather

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Place is where a forecast is read from: an office's document, and
// within it a class10 area and a temperature station.
type Place struct {
	// Name is JMA's name of the office's area (area.json "offices"), e.g.
	// 大阪府 or 石狩・空知・後志地方.
	Name string
	// Office is the forecast document's office code, e.g. 270000.
	Office string
	// Area is the class10 area within Office; "" is the document's first
	// (the office's main area).
	Area string
	// Station is the temperature station; "" is the document's first.
	Station string
}

// placeNames lists JMA's forecast offices (area.json "offices", 58 of them,
// in its order; 出典：気象庁) with the names a question may use for each:
// the prefecture's short and long form, the office's own subregions,
// 政令指定都市 and prefectural capitals, a few well-known towns, and
// romanized names for English questions. The office's Name is matched too.
//
// Two offices publish no forecast document of their own: 十勝地方 (014030)
// is in 釧路・根室地方's (014100) and 奄美地方 (460040) in 鹿児島県's
// (460100), so they are read from there by area and station.
//
// Names that are also ordinary words or common elsewhere are left out: 津
// (津波), 宮古 (宮古市 is in 岩手県), 石垣 without 島, 日高 alone stands for
// the Hokkaido subregion.
var placeNames = []struct {
	Place
	names []string
}{
	{Place{Name: "宗谷地方", Office: "011000"}, []string{"宗谷", "稚内", "利尻", "礼文", "Soya", "Wakkanai"}},
	{Place{Name: "上川・留萌地方", Office: "012000"}, []string{"上川地方", "留萌地方", "上川", "留萌", "旭川", "富良野", "Kamikawa", "Rumoi", "Asahikawa", "Furano"}},
	{Place{Name: "網走・北見・紋別地方", Office: "013000"}, []string{"網走地方", "北見地方", "紋別地方", "網走", "北見", "紋別", "知床", "Abashiri", "Kitami", "Monbetsu"}},
	{Place{Name: "十勝地方", Office: "014100", Area: "014030", Station: "帯広"}, []string{"十勝", "帯広", "Tokachi", "Obihiro"}},
	{Place{Name: "釧路・根室地方", Office: "014100"}, []string{"根室地方", "根室", "Nemuro"}},
	{Place{Name: "胆振・日高地方", Office: "015000"}, []string{"胆振地方", "日高地方", "胆振", "日高", "室蘭", "苫小牧", "登別", "Iburi", "Hidaka", "Muroran", "Tomakomai"}},
	{Place{Name: "石狩・空知・後志地方", Office: "016000"}, []string{"石狩地方", "空知地方", "後志地方", "石狩", "空知", "後志", "北海道", "道央", "札幌", "小樽", "千歳", "北広島", "Hokkaido", "Sapporo", "Otaru", "Chitose", "Niseko"}},
	{Place{Name: "渡島・檜山地方", Office: "017000"}, []string{"渡島地方", "檜山地方", "渡島", "檜山", "函館", "Hakodate"}},
	{Place{Name: "青森県", Office: "020000"}, []string{"青森", "弘前", "Aomori", "Hirosaki"}},
	{Place{Name: "岩手県", Office: "030000"}, []string{"岩手", "盛岡", "Iwate", "Morioka"}},
	{Place{Name: "宮城県", Office: "040000"}, []string{"宮城", "仙台", "Miyagi", "Sendai"}},
	{Place{Name: "秋田県", Office: "050000"}, []string{"秋田", "Akita"}},
	{Place{Name: "山形県", Office: "060000"}, []string{"山形", "Yamagata"}},
	{Place{Name: "福島県", Office: "070000"}, []string{"福島", "Fukushima"}},
	{Place{Name: "茨城県", Office: "080000"}, []string{"茨城", "水戸", "つくば", "Ibaraki", "Mito", "Tsukuba"}},
	{Place{Name: "栃木県", Office: "090000"}, []string{"栃木", "宇都宮", "日光", "Tochigi", "Utsunomiya", "Nikko"}},
	{Place{Name: "群馬県", Office: "100000"}, []string{"群馬", "前橋", "高崎", "Gunma", "Maebashi", "Takasaki"}},
	{Place{Name: "埼玉県", Office: "110000"}, []string{"埼玉", "さいたま", "川越", "熊谷", "Saitama", "Kawagoe", "Kumagaya"}},
	{Place{Name: "千葉県", Office: "120000"}, []string{"千葉", "船橋", "成田", "Chiba", "Funabashi", "Narita"}},
	{Place{Name: "東京都", Office: "130000"}, []string{"東京", "新宿", "渋谷", "池袋", "品川", "八王子", "Tokyo", "Shinjuku", "Shibuya"}},
	{Place{Name: "神奈川県", Office: "140000"}, []string{"神奈川", "横浜", "川崎", "相模原", "鎌倉", "箱根", "Kanagawa", "Yokohama", "Kawasaki", "Sagamihara", "Kamakura", "Hakone"}},
	{Place{Name: "新潟県", Office: "150000"}, []string{"新潟", "Niigata"}},
	{Place{Name: "富山県", Office: "160000"}, []string{"富山", "Toyama"}},
	{Place{Name: "石川県", Office: "170000"}, []string{"石川", "金沢", "Ishikawa", "Kanazawa"}},
	{Place{Name: "福井県", Office: "180000"}, []string{"福井", "Fukui"}},
	{Place{Name: "山梨県", Office: "190000"}, []string{"山梨", "甲府", "Yamanashi", "Kofu"}},
	{Place{Name: "長野県", Office: "200000"}, []string{"長野", "Nagano"}},
	{Place{Name: "岐阜県", Office: "210000"}, []string{"岐阜", "Gifu"}},
	{Place{Name: "静岡県", Office: "220000"}, []string{"静岡", "Shizuoka"}},
	{Place{Name: "愛知県", Office: "230000"}, []string{"愛知", "名古屋", "豊田", "Aichi", "Nagoya"}},
	{Place{Name: "三重県", Office: "240000"}, []string{"三重", "津市", "四日市", "伊勢", "Mie", "Yokkaichi", "Ise"}},
	{Place{Name: "滋賀県", Office: "250000"}, []string{"滋賀", "大津", "Shiga", "Otsu"}},
	{Place{Name: "京都府", Office: "260000"}, []string{"京都", "Kyoto"}},
	{Place{Name: "大阪府", Office: "270000"}, []string{"大阪", "堺", "梅田", "難波", "Osaka", "Sakai", "Umeda", "Namba"}},
	{Place{Name: "兵庫県", Office: "280000"}, []string{"兵庫", "神戸", "姫路", "西宮", "尼崎", "Hyogo", "Kobe", "Himeji"}},
	{Place{Name: "奈良県", Office: "290000"}, []string{"奈良", "Nara"}},
	{Place{Name: "和歌山県", Office: "300000"}, []string{"和歌山", "白浜", "Wakayama", "Shirahama"}},
	{Place{Name: "鳥取県", Office: "310000"}, []string{"鳥取", "Tottori"}},
	{Place{Name: "島根県", Office: "320000"}, []string{"島根", "松江", "出雲", "Shimane", "Matsue", "Izumo"}},
	{Place{Name: "岡山県", Office: "330000"}, []string{"岡山", "倉敷", "Okayama", "Kurashiki"}},
	{Place{Name: "広島県", Office: "340000"}, []string{"広島", "福山", "Hiroshima", "Fukuyama"}},
	{Place{Name: "山口県", Office: "350000"}, []string{"山口", "下関", "Yamaguchi", "Shimonoseki"}},
	{Place{Name: "徳島県", Office: "360000"}, []string{"徳島", "Tokushima"}},
	{Place{Name: "香川県", Office: "370000"}, []string{"香川", "高松", "Kagawa", "Takamatsu"}},
	{Place{Name: "愛媛県", Office: "380000"}, []string{"愛媛", "松山", "Ehime", "Matsuyama"}},
	{Place{Name: "高知県", Office: "390000"}, []string{"高知", "Kochi"}},
	{Place{Name: "福岡県", Office: "400000"}, []string{"福岡", "博多", "久留米", "Fukuoka", "Hakata"}},
	{Place{Name: "佐賀県", Office: "410000"}, []string{"佐賀", "Saga"}},
	{Place{Name: "長崎県", Office: "420000"}, []string{"長崎", "Nagasaki"}},
	{Place{Name: "熊本県", Office: "430000"}, []string{"熊本", "阿蘇", "Kumamoto", "Aso"}},
	{Place{Name: "大分県", Office: "440000"}, []string{"大分", "別府", "Oita", "Beppu"}},
	{Place{Name: "宮崎県", Office: "450000"}, []string{"宮崎", "Miyazaki"}},
	{Place{Name: "奄美地方", Office: "460100", Area: "460040", Station: "名瀬"}, []string{"奄美", "名瀬", "Amami"}},
	{Place{Name: "鹿児島県（奄美地方除く）", Office: "460100"}, []string{"鹿児島県", "鹿児島", "Kagoshima"}},
	{Place{Name: "沖縄本島地方", Office: "471000"}, []string{"沖縄本島", "沖縄県", "沖縄", "那覇", "名護", "Okinawa", "Naha"}},
	{Place{Name: "大東島地方", Office: "472000"}, []string{"大東島", "南大東", "北大東", "Daito"}},
	{Place{Name: "宮古島地方", Office: "473000"}, []string{"宮古島", "Miyakojima"}},
	{Place{Name: "八重山地方", Office: "474000"}, []string{"八重山", "石垣島", "石垣市", "西表", "与那国", "Yaeyama", "Ishigaki", "Iriomote"}},
}

// placeAreas are towns outside their office's first class10 area, read
// for their own area and temperature station (area codes and stations as
// in JMA's forecast_area.json): 釧路 is not 根室地方, いわき not 中通り.
var placeAreas = []struct {
	Place
	names []string
}{
	{Place{Name: "釧路・根室地方", Office: "014100", Area: "014020", Station: "釧路"}, []string{"釧路地方", "釧路", "Kushiro"}},
	{Place{Name: "青森県", Office: "020000", Area: "020030", Station: "八戸"}, []string{"八戸", "Hachinohe"}},
	{Place{Name: "福島県", Office: "070000", Area: "070010", Station: "郡山"}, []string{"郡山", "Koriyama"}},
	{Place{Name: "福島県", Office: "070000", Area: "070020", Station: "小名浜"}, []string{"いわき", "浜通り", "小名浜", "相馬", "Iwaki"}},
	{Place{Name: "福島県", Office: "070000", Area: "070030", Station: "若松"}, []string{"会津", "Aizu"}},
	{Place{Name: "石川県", Office: "170000", Area: "170020", Station: "輪島"}, []string{"能登", "輪島", "Noto", "Wajima"}},
	{Place{Name: "長野県", Office: "200000", Area: "200020", Station: "松本"}, []string{"松本", "安曇野", "上高地", "Matsumoto"}},
	{Place{Name: "長野県", Office: "200000", Area: "200020", Station: "軽井沢"}, []string{"軽井沢", "Karuizawa"}},
	{Place{Name: "長野県", Office: "200000", Area: "200020", Station: "諏訪"}, []string{"諏訪", "Suwa"}},
	{Place{Name: "長野県", Office: "200000", Area: "200030", Station: "飯田"}, []string{"飯田"}},
	{Place{Name: "静岡県", Office: "220000", Area: "220040", Station: "浜松"}, []string{"浜松", "Hamamatsu"}},
	{Place{Name: "福岡県", Office: "400000", Area: "400020", Station: "八幡"}, []string{"北九州", "Kitakyushu"}},
	{Place{Name: "長崎県", Office: "420000", Area: "420020", Station: "佐世保"}, []string{"佐世保", "Sasebo"}},
	{Place{Name: "鹿児島県（奄美地方除く）", Office: "460100", Area: "460030", Station: "種子島"}, []string{"屋久島", "種子島", "Yakushima"}},
}

// placeName is one name of a place, as matched.
type placeName struct {
	name  string // lowercased
	ascii bool   // a romanized name: matched as a whole word
	place Place
}

// placeIndex holds every name by its first rune, longest first, so that
// the first name matching at a position is the longest there and a
// position is compared only with the names that can start there.
var placeIndex = func() map[rune][]placeName {
	var idx []placeName
	seen := map[string]bool{}
	add := func(name string, p Place) {
		name = strings.ToLower(name)
		if seen[name] {
			panic("weather: place name " + name + " listed twice")
		}
		seen[name] = true
		idx = append(idx, placeName{name: name, ascii: isASCII(name), place: p})
	}
	for _, e := range placeNames {
		add(e.Name, e.Place)
		for _, n := range e.names {
			add(n, e.Place)
		}
	}
	for _, e := range placeAreas {
		for _, n := range e.names {
			add(n, e.Place)
		}
	}
	slices.SortStableFunc(idx, func(a, b placeName) int { return len(b.name) - len(a.name) })
	byFirst := map[rune][]placeName{}
	for _, n := range idx {
		r, _ := utf8.DecodeRuneInString(n.name)
		byFirst[r] = append(byFirst[r], n)
	}
	return byFirst
}()

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiLetter(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// honorifics after a name make it a person (山口さん, 千葉先生), not a place.
var honorifics = []string{"さん", "さま", "様", "くん", "君", "ちゃん", "氏", "先生", "選手", "監督"}

// weatherAfter is what follows a place the question is about: 「大阪の天気」,
// 「大阪は明日雨？」, 「大阪で傘いる？」.
var weatherAfter = regexp.MustCompile(`^(?:の|で|は|って|も)?(?:(?:今日|明日|明後日|あさって|今夜|今週|来週|週末)(?:の|は)?)?(?:天気|天候|気温|予報|降水|雨|雪|洗濯|傘|寒|暑)`)

// FindPlace returns the place the text asks about, Japanese or English
// (「大阪の明日の天気は？」, "weather in Osaka"): the first named before a
// weather word (「東京から行くけど、大阪は雨？」 is Osaka), else the first named.
// At each position the longest name wins, so 東京都 is Tokyo and not 京都
// inside it; a romanized name matches only as a whole word; a name
// followed by an honorific (山口さん) is a person. False when the text
// names no place the table knows.
func FindPlace(text string) (Place, bool) {
	lower := strings.ToLower(text)
	var first Place
	found := false
	for i := 0; i < len(lower); {
		r, size := utf8.DecodeRuneInString(lower[i:])
		if n, ok := nameAt(lower, i, r); ok {
			rest := lower[i+len(n.name):]
			i += len(n.name)
			if !n.ascii && hasAnyPrefix(rest, honorifics) {
				continue
			}
			if !n.ascii && weatherAfter.MatchString(rest) {
				return n.place, true
			}
			if !found {
				first, found = n.place, true
			}
			continue
		}
		i += size
	}
	return first, found
}

// nameAt is the longest name that starts at s[i:] (with rune r) and stands
// there as a name: a romanized one must not be part of a longer word.
func nameAt(s string, i int, r rune) (placeName, bool) {
	for _, n := range placeIndex[r] {
		if !strings.HasPrefix(s[i:], n.name) {
			continue
		}
		if n.ascii {
			end := i + len(n.name)
			if i > 0 && asciiLetter(s[i-1]) || end < len(s) && asciiLetter(s[end]) {
				continue
			}
		}
		return n, true
	}
	return placeName{}, false
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// OfficePlace is the place of an office code (WEATHER_AREA_CODE): its
// table entry, or the bare office when the table does not list the code.
// 十勝地方 (014030) and 奄美地方 (460040), offices without a document of
// their own, are read from the document that holds them.
func OfficePlace(office string) Place {
	for _, e := range placeNames {
		if e.Office == office && e.Area == "" || e.Area == office {
			return e.Place
		}
	}
	return Place{Office: office}
}

// Label names the place for a user: its office's Name, or its office code
// when the table does not list it.
func (p Place) Label() string {
	if p.Name != "" {
		return p.Name
	}
	return "予報区 " + p.Office
}

// PlaceFor is the place a weather question asks about: the one it names,
// else defaultOffice's (WEATHER_AREA_CODE). unknown is the place it named
// that the table does not know (「アトランティスの天気は？」), "" when it named
// none: the answer should then say the default area stands in.
func PlaceFor(text, defaultOffice string) (p Place, unknown string) {
	if p, ok := FindPlace(text); ok {
		return p, ""
	}
	return OfficePlace(defaultOffice), UnknownPlace(text)
}

// areaLabel names a class10 area for a reader who does not know which
// office it is in: a bare part such as 南部 or 中通り gets its office's name
// (京都府 南部); a named area (東京地方, 奄美地方, 大阪府) stands alone.
func areaLabel(p Place, area string) string {
	office, _, _ := strings.Cut(p.Name, "（") // 鹿児島県（奄美地方除く） → 鹿児島県
	if office == "" || area == "" || strings.HasSuffix(area, "地方") || strings.Contains(area, office) {
		return area
	}
	return office + " " + area
}

// askedJa finds the name before 「の天気」 and the like: 「アトランティスの天気は？」,
// 「ロンドンの明日の気温」. Hiragana ends the name, so particles are not
// taken for one.
var askedJa = regexp.MustCompile(`([\p{Han}\p{Katakana}ーA-Za-z・]+)(?:の|で|は|って)(?:(?:今日|明日|明後日|あさって|今夜|今週|来週|週末)の?)?(?:天気|天候|気温|予報|降水|雨|雪|洗濯)`)

// askedEn finds a capitalised name after in/for/at: "weather in Atlantis".
var askedEn = regexp.MustCompile(`\b(?i:in|for|at)\s+((?:[A-Z][\p{L}'-]*)(?:\s+[A-Z][\p{L}'-]*)*)`)

// notPlaces are names in a place's position that are times, "here", or
// what else a weather question is about (「来週月曜の天気」, 「地元の天気」,
// 「梅雨の天気」), not places.
var notPlaces = regexp.MustCompile(`^(?:今日|本日|明日|明後日|昨日|一昨日|今夜|今晩|今朝|今週|来週|再来週|週末|土日|平日|連休|午前|午後|朝|昼|夜|夕方|日中|今|現在|最近|毎日|今月|来月|[月火水木金土日]曜日?|[0-9０-９]+日|地元|近所|この辺|ここ|外|屋外|梅雨|台風|花粉|黄砂|雷|春|夏|秋|冬|季節|年末|年始|正月|祝日|花見|紅葉|運動会|遠足|試合|通勤|通学|散歩|洗濯物|天気)+$|^(?:Today|Tomorrow|Tonight|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December|English|Japanese|Celsius|Fahrenheit)$`)

// UnknownPlace returns the place a weather question asks about when it is
// one FindPlace does not know (「アトランティスの天気は？」 → アトランティス), so
// the answer can say that the default area is used instead; "" when the
// question names no place, or a known one.
func UnknownPlace(text string) string {
	if _, ok := FindPlace(text); ok {
		return ""
	}
	for _, re := range []*regexp.Regexp{askedJa, askedEn} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if name := strings.TrimSpace(m[1]); name != "" && !notPlaces.MatchString(name) {
				return name
			}
		}
	}
	return ""
}
