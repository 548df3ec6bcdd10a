package commands

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// /timezone: the time zone a user reads times in, theirs wherever they are.

// TimeZones is what /timezone reads and changes; *scheduler.Reminders
// satisfies it.
type TimeZones interface {
	// TimeZone is the IANA name userID chose; set is false when they chose
	// none.
	TimeZone(ctx context.Context, userID string) (name string, set bool, err error)
	// SetTimeZone stores name as userID's zone, "" clearing it.
	SetTimeZone(ctx context.Context, userID, name string) error
	// Location is the server's default (TIMEZONE).
	Location() *time.Location
	// Now is the clock the replies tell the time by.
	Now() time.Time
}

// zonesText is the IANA zone names offered as the user types, one a line:
// every name of zone.tab (at least one per country, under the name people
// know, such as Europe/Oslo) and UTC. It was made from the tzdata package
// of the build machine (2025b) with
//
//	{ grep -v '^#' /usr/share/zoneinfo/zone.tab | cut -f3; echo UTC; } | LC_ALL=C sort -u > zones.txt
//
// and wants the same again when a tzdata release adds or renames a zone.
// Other names time.LoadLocation knows (Etc/GMT-9, old links) can still be
// set; they are only not offered.
//
//go:embed zones.txt
var zonesText string

var zoneNames = strings.Fields(zonesText)

// zoneAliases are words people type for a zone that its name lacks:
// countries, abbreviations, old names (tzdata's backward links) and
// Japanese place names. Keys are as normalise leaves them.
var zoneAliases = map[string]string{
	"japan": "Asia/Tokyo", "jst": "Asia/Tokyo", "日本": "Asia/Tokyo", "東京": "Asia/Tokyo",
	"osaka": "Asia/Tokyo", "大阪": "Asia/Tokyo", "nagoya": "Asia/Tokyo", "名古屋": "Asia/Tokyo",
	"sapporo": "Asia/Tokyo", "札幌": "Asia/Tokyo", "fukuoka": "Asia/Tokyo", "福岡": "Asia/Tokyo",
	"okinawa": "Asia/Tokyo", "沖縄": "Asia/Tokyo",
	"utc": "UTC", "gmt": "UTC", "zulu": "UTC", "universal": "UTC", "協定世界時": "UTC",
	"korea": "Asia/Seoul", "kst": "Asia/Seoul", "rok": "Asia/Seoul", "韓国": "Asia/Seoul", "ソウル": "Asia/Seoul",
	"china": "Asia/Shanghai", "prc": "Asia/Shanghai", "beijing": "Asia/Shanghai", "peking": "Asia/Shanghai",
	"中国": "Asia/Shanghai", "北京": "Asia/Shanghai", "上海": "Asia/Shanghai",
	"taiwan": "Asia/Taipei", "roc": "Asia/Taipei", "台湾": "Asia/Taipei", "台北": "Asia/Taipei",
	"hongkong": "Asia/Hong_Kong", "香港": "Asia/Hong_Kong", "シンガポール": "Asia/Singapore",
	"thailand": "Asia/Bangkok", "タイ": "Asia/Bangkok", "バンコク": "Asia/Bangkok",
	"vietnam": "Asia/Ho_Chi_Minh", "saigon": "Asia/Ho_Chi_Minh", "hanoi": "Asia/Ho_Chi_Minh", "ベトナム": "Asia/Ho_Chi_Minh",
	"philippines": "Asia/Manila", "フィリピン": "Asia/Manila",
	"india": "Asia/Kolkata", "calcutta": "Asia/Kolkata", "mumbai": "Asia/Kolkata", "delhi": "Asia/Kolkata", "インド": "Asia/Kolkata",
	"オーストラリア": "Australia/Sydney", "シドニー": "Australia/Sydney",
	"new_zealand": "Pacific/Auckland", "nz": "Pacific/Auckland", "ニュージーランド": "Pacific/Auckland",
	"hawaii": "Pacific/Honolulu", "hst": "Pacific/Honolulu", "ハワイ": "Pacific/Honolulu",
	"us/eastern": "America/New_York", "eastern": "America/New_York", "est": "America/New_York", "edt": "America/New_York",
	"washington": "America/New_York", "boston": "America/New_York", "ニューヨーク": "America/New_York",
	"us/central": "America/Chicago", "cst": "America/Chicago", "cdt": "America/Chicago", "シカゴ": "America/Chicago",
	"us/mountain": "America/Denver", "mst": "America/Denver", "mdt": "America/Denver",
	"us/pacific": "America/Los_Angeles", "pacific": "America/Los_Angeles", "pst": "America/Los_Angeles", "pdt": "America/Los_Angeles",
	"la": "America/Los_Angeles", "san_francisco": "America/Los_Angeles", "seattle": "America/Los_Angeles",
	"ロサンゼルス": "America/Los_Angeles", "サンフランシスコ": "America/Los_Angeles", "シアトル": "America/Los_Angeles",
	"us/alaska": "America/Anchorage", "alaska": "America/Anchorage",
	"us/arizona": "America/Phoenix", "arizona": "America/Phoenix",
	"brazil": "America/Sao_Paulo", "ブラジル": "America/Sao_Paulo",
	"uk": "Europe/London", "gb": "Europe/London", "england": "Europe/London", "britain": "Europe/London", "bst": "Europe/London",
	"イギリス": "Europe/London", "ロンドン": "Europe/London",
	"france": "Europe/Paris", "フランス": "Europe/Paris", "パリ": "Europe/Paris",
	"germany": "Europe/Berlin", "cet": "Europe/Berlin", "cest": "Europe/Berlin", "ドイツ": "Europe/Berlin", "ベルリン": "Europe/Berlin",
	"kiev": "Europe/Kyiv", "russia": "Europe/Moscow", "msk": "Europe/Moscow", "ロシア": "Europe/Moscow", "モスクワ": "Europe/Moscow",
}

// commonZones are offered before anything is typed, and come first among
// equally good matches: Japan first, then the zones of neighbours and of
// the places members most often live in or deal with.
var commonZones = []string{
	"Asia/Tokyo", "UTC", "Asia/Seoul", "Asia/Shanghai", "Asia/Taipei", "Asia/Hong_Kong",
	"Asia/Singapore", "Asia/Bangkok", "Asia/Kolkata", "Australia/Sydney", "Pacific/Auckland",
	"Pacific/Honolulu", "America/Los_Angeles", "America/Denver", "America/Chicago",
	"America/New_York", "America/Sao_Paulo", "Europe/London", "Europe/Paris", "Europe/Berlin",
	"Europe/Moscow",
}

// maxChoices is the most choices Discord shows.
const maxChoices = 25

// zoneExamples end every reply that asks for a zone name.
const zoneExamples = "例：Asia/Tokyo、America/New_York"

const timezoneFailedReply = "ごめんなさい、タイムゾーンの設定を読み書きできませんでした。しばらくしてからもう一度お試しください。"

// Timezone is /timezone set|show|reset: the caller's own time zone, which
// reminders are read and shown in; unset, the server's TIMEZONE applies.
func Timezone(z TimeZones, log *slog.Logger) Command {
	return Command{
		Name:          "timezone",
		Description:   "Your time zone, for the times yorozu reads and shows you",
		DescriptionJA: "あなたのタイムゾーン（リマインダーの時刻をこのタイムゾーンで読み書きします）",
		Options: []Option{
			{
				Type: Subcommand, Name: "set",
				Description:   "Set your time zone (an IANA name such as Asia/Tokyo)",
				DescriptionJA: "タイムゾーンを設定（Asia/Tokyo のような IANA の名前）",
				Options: []Option{{
					Type: String, Name: "name", Required: true, Autocomplete: true, MaxLength: 64,
					Description:   "Time zone, e.g. Asia/Tokyo or America/New_York",
					DescriptionJA: "タイムゾーン（例：Asia/Tokyo、America/New_York）",
				}},
			},
			{
				Type: Subcommand, Name: "show",
				Description:   "Show your time zone and the time there",
				DescriptionJA: "いまのタイムゾーンと現地の時刻を表示",
			},
			{
				Type: Subcommand, Name: "reset",
				Description:   "Go back to the server's default time zone",
				DescriptionJA: "サーバーの既定のタイムゾーンに戻す",
			},
		},
		Run: func(ctx context.Context, req Request) Reply {
			return Text(timezoneReply(ctx, z, req, log))
		},
		Complete: func(_ context.Context, req Request) []Choice {
			return zoneChoices(req.String(req.Focused), z.Now())
		},
	}
}

func timezoneReply(ctx context.Context, z TimeZones, req Request, log *slog.Logger) string {
	if req.UserID == "" {
		return unsupportedReply
	}
	switch req.Subcommand {
	case "set":
		return timezoneSet(ctx, z, req, log)
	case "show":
		return timezoneShow(ctx, z, req, log)
	case "reset":
		if err := z.SetTimeZone(ctx, req.UserID, ""); err != nil {
			log.Error("/timezone reset", "user_id", req.UserID, "err", err)
			return timezoneFailedReply
		}
		return "タイムゾーンの設定を解除しました。サーバーの既定 " + zoneNow(z.Location(), z.Now()) + "を使います。"
	}
	return unsupportedReply
}

func timezoneSet(ctx context.Context, z TimeZones, req Request, log *slog.Logger) string {
	typed := req.String("name")
	if typed == "" {
		return "タイムゾーンの名前を `name` に入れてください（" + zoneExamples + "）。"
	}
	name := resolveZone(typed)
	loc, refusal := loadZone(name)
	if refusal != "" {
		return refusal
	}
	if err := z.SetTimeZone(ctx, req.UserID, name); err != nil {
		log.Error("/timezone set", "user_id", req.UserID, "time_zone", name, "err", err)
		return timezoneFailedReply
	}
	return "タイムゾーンを " + zoneNow(loc, z.Now()) + "にしました。これからリマインダーの時刻はこのタイムゾーンで読み書きします。"
}

func timezoneShow(ctx context.Context, z TimeZones, req Request, log *slog.Logger) string {
	name, set, err := z.TimeZone(ctx, req.UserID)
	if err != nil {
		log.Error("/timezone show", "user_id", req.UserID, "err", err)
		return timezoneFailedReply
	}
	def := zoneNow(z.Location(), z.Now())
	if !set {
		return "タイムゾーンは設定されていないので、サーバーの既定 " + def + "を使います。`/timezone set` で変えられます。"
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		// Stored when valid; the zone database may have dropped it since.
		return "あなたのタイムゾーン " + name + " は読み込めないため、サーバーの既定 " + def + "を使っています。`/timezone set` で設定し直してください。"
	}
	return "あなたのタイムゾーン: " + zoneNow(loc, z.Now())
}

// loadZone loads the zone name, or says in a reply why it cannot be set.
func loadZone(name string) (*time.Location, string) {
	if name == "Local" {
		return nil, "Local はサーバーの時計のことで、場所の名前ではないので設定できません。地域/都市の名前で入力してください（" + zoneExamples + "）。"
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		reply := "「" + name + "」というタイムゾーンは見つかりません。IANA の名前（地域/都市を英語で）で入力してください（" + zoneExamples + "）。"
		if near := closeZones(name); len(near) > 0 {
			reply += "もしかして: " + strings.Join(near, "、")
		}
		return nil, reply
	}
	return loc, ""
}

// zoneNow names loc with its offset and the time there at now:
// Asia/Tokyo（UTC+09:00、いま 15:04）.
func zoneNow(loc *time.Location, now time.Time) string {
	t := now.In(loc)
	return fmt.Sprintf("%s（%s、いま %s）", loc, utcOffset(t), t.Format("15:04"))
}

// utcOffset is t's offset from UTC as UTC+09:00 or UTC-03:30.
func utcOffset(t time.Time) string {
	_, off := t.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("UTC%c%02d:%02d", sign, off/3600, off%3600/60)
}

// normalise is text as zone names and aliases are compared: lower case,
// full-width letters made ASCII, spaces as the names' underscores.
func normalise(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= '！' && r <= '～' { // full-width ASCII, as Japanese input methods type it
			return r - '！' + '!'
		}
		return r
	}, s)
	return strings.ToLower(strings.Join(strings.Fields(s), "_"))
}

// resolveZone is the zone name typed meant: a listed name in any case, or
// the zone of an alias ("tokyo", "日本", "utc"); otherwise typed itself,
// for time.LoadLocation to judge.
func resolveZone(typed string) string {
	q := normalise(typed)
	if z, ok := zoneAliases[q]; ok {
		return z
	}
	for _, z := range zoneNames {
		if strings.ToLower(z) == q || strings.ToLower(zoneCity(z)) == q {
			return z
		}
	}
	return typed
}

// zoneCity is the last part of a zone name: Tokyo of Asia/Tokyo.
func zoneCity(name string) string {
	return name[strings.LastIndexByte(name, '/')+1:]
}

// How well a zone matches what was typed; lower is better.
const (
	matchExact  = iota // the name, its city or an alias
	matchPrefix        // the name or its city begins with it
	matchWord          // a word of the name, or an alias, begins with it (York of New_York)
	matchInside        // it is somewhere in the name or an alias
	noMatch
)

func zoneMatch(q, name string) int {
	n := strings.ToLower(name)
	city := zoneCity(n)
	switch {
	case n == q || city == q:
		return matchExact
	case strings.HasPrefix(n, q) || strings.HasPrefix(city, q):
		return matchPrefix
	}
	for _, w := range strings.FieldsFunc(n, func(r rune) bool { return r == '/' || r == '_' }) {
		if strings.HasPrefix(w, q) {
			return matchWord
		}
	}
	if strings.Contains(n, q) {
		return matchInside
	}
	return noMatch
}

// aliasMatch ranks an alias's beginning below a name's, so "os" offers
// Europe/Oslo before Asia/Tokyo (for Osaka).
func aliasMatch(q, alias string) int {
	switch {
	case alias == q:
		return matchExact
	case strings.HasPrefix(alias, q):
		return matchWord
	case strings.Contains(alias, q):
		return matchInside
	}
	return noMatch
}

// matchingZones are the listed zones that match typed (by name or alias),
// best first: exact, then prefix, word and substring matches, the common
// zones before the rest among equals, then by name.
func matchingZones(typed string) []string {
	q := normalise(typed)
	if q == "" {
		return commonZones
	}
	best := map[string]int{}
	for _, z := range zoneNames {
		if m := zoneMatch(q, z); m != noMatch {
			best[z] = m
		}
	}
	for alias, z := range zoneAliases {
		if m := aliasMatch(q, alias); m != noMatch {
			if prev, ok := best[z]; !ok || m < prev {
				best[z] = m
			}
		}
	}
	out := make([]string, 0, len(best))
	for z := range best {
		out = append(out, z)
	}
	common := func(z string) int {
		if i := slices.Index(commonZones, z); i >= 0 {
			return i
		}
		return len(commonZones)
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(best[a], best[b]), cmp.Compare(common(a), common(b)), strings.Compare(a, b))
	})
	return out
}

// zoneChoices are the autocomplete choices for typed, at most maxChoices,
// each showing its offset at now.
func zoneChoices(typed string, now time.Time) []Choice {
	zones := matchingZones(typed)
	out := make([]Choice, 0, min(len(zones), maxChoices))
	for _, z := range zones[:min(len(zones), maxChoices)] {
		label := z
		if loc, err := time.LoadLocation(z); err == nil {
			label += "（" + utcOffset(now.In(loc)) + "）"
		}
		out = append(out, Choice{Name: label, Value: z})
	}
	return out
}

// closeZones are up to three listed zones the user may have meant by a
// name that is not one: those that match it, else those whose city is a
// typo or two away (Tokio for Tokyo).
func closeZones(typed string) []string {
	if normalise(typed) == "" {
		return nil
	}
	if zs := matchingZones(typed); len(zs) > 0 {
		return zs[:min(len(zs), 3)]
	}
	q := normalise(zoneCity(typed))
	limit := 1
	if len([]rune(q)) >= 5 {
		limit = 2
	}
	var out []string
	for _, z := range zoneNames {
		if editDistance(q, strings.ToLower(zoneCity(z))) <= limit {
			out = append(out, z)
		}
	}
	return out[:min(len(out), 3)]
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
