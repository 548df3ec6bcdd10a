package disaster

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/jma"
)

// Source is the attribution every post carries.
const Source = "出典：気象庁"

// maxPost keeps a post under Discord's 2,000 characters with room for a
// mention.
const maxPost = 1900

// citiesShown is how many of a prefecture's strongest cities a post names.
const citiesShown = 5

// Post is the text of one message and a one-line title of it (what the
// model's tool lists).
type Post struct {
	Title   string
	Content string
}

// jaTime is a time as posts show it: 8月28日 4時54分.
func jaTime(t time.Time) string {
	t = t.In(JST)
	return fmt.Sprintf("%d月%d日 %d時%02d分", t.Month(), t.Day(), t.Hour(), t.Minute())
}

// QuakePost is the message of an earthquake. areas are the prefectures of
// interest (empty: all), whose strongest cities it names when names has
// them (AreaNames).
func QuakePost(q Quake, areas []string, names map[string]string) Post {
	var b strings.Builder
	label := "最大震度" + q.Max.String()
	if q.Max == 0 {
		label = "震度不明"
	}
	if len(areas) > 0 {
		if m := q.MaxIn(areas); m > 0 && m != q.Max {
			label += fmt.Sprintf("（対象地域で%s）", m)
		}
	}
	switch {
	case q.Cancelled:
		fmt.Fprintf(&b, "~~地震情報~~ **この情報は取り消されました**\n")
	case q.Max >= Intensity5Lower:
		fmt.Fprintf(&b, "🟥 **【強い揺れ】地震情報　%s**\n", label)
	default:
		fmt.Fprintf(&b, "📢 **地震情報　%s**\n", label)
	}
	place := q.Hypocenter
	if place == "" {
		place = "（震源は調査中）"
	}
	if !q.OccurredAt.IsZero() {
		fmt.Fprintf(&b, "%sごろ、地震がありました。\n", jaTime(q.OccurredAt))
	}
	fmt.Fprintf(&b, "震源：%s", place)
	if q.DepthKm == 0 {
		b.WriteString("（ごく浅い）")
	} else if q.DepthKm > 0 {
		fmt.Fprintf(&b, "（深さ約%dkm）", q.DepthKm)
	}
	if q.Magnitude != "" {
		fmt.Fprintf(&b, "　規模：M%s", q.Magnitude)
	}
	b.WriteString("\n")
	if len(q.Prefs) > 0 {
		b.WriteString("【各地の震度】\n")
		for i := Intensity(len(intensityNames) - 1); i >= 1; i-- {
			var parts []string
			for _, p := range q.Prefs {
				if p.Max != i {
					continue
				}
				part := p.Name()
				if (len(areas) == 0 && p.Max == q.Max) || slices.Contains(areas, p.Code) {
					if cs := cityNames(p, names); cs != "" {
						part += "（" + cs + "）"
					}
				}
				parts = append(parts, part)
			}
			if len(parts) > 0 {
				fmt.Fprintf(&b, "震度%s　%s\n", i, strings.Join(parts, "、"))
			}
		}
	}
	fmt.Fprintf(&b, "（%s　%s発表）\n%s", q.Latest.Title, jaTime(q.Latest.ReportedAt), Source)

	title := place
	if !q.OccurredAt.IsZero() {
		title = jaTime(q.OccurredAt) + "ごろ " + place
	}
	if q.Magnitude != "" {
		title += " M" + q.Magnitude
	}
	title += " " + label
	return Post{Title: title, Content: clip(b.String())}
}

// cityNames are a prefecture's strongest cities with their intensity when
// it differs from the prefecture's: "八戸市、三戸町、盛岡市 震度2".
func cityNames(p PrefIntensity, names map[string]string) string {
	var parts []string
	for _, c := range p.Cities {
		if len(parts) == citiesShown {
			break
		}
		n := names[c.Code]
		if n == "" {
			continue
		}
		if c.Max != p.Max {
			n += " 震度" + c.Max.String()
		}
		parts = append(parts, n)
	}
	return strings.Join(parts, "、")
}

var tsunamiLabels = map[int]string{TsunamiMajor: "大津波警報", TsunamiWarning: "津波警報", TsunamiAdvisory: "津波注意報"}

// TsunamiPost is the message of a tsunami report: the areas of interest
// (empty: all) by level, or that everything was cancelled.
func TsunamiPost(r TsunamiReport, areas []string) Post {
	var b strings.Builder
	level := r.Level()
	cause := "地震"
	if r.Entry.Hypocenter != "" {
		cause = r.Entry.Hypocenter + "の地震"
	}
	if r.Entry.Magnitude != "" {
		cause += "（M" + r.Entry.Magnitude + "）"
	}
	title := ""
	switch {
	case r.Entry.InfoType == "取消":
		title = "津波情報（取消）"
		b.WriteString("~~津波情報~~ **この情報は取り消されました**\n")
	case level == TsunamiNone:
		title = "津波警報・注意報 解除"
		b.WriteString("✅ **津波警報・注意報はすべて解除されました**\n")
		fmt.Fprintf(&b, "%sによる津波の警報・注意報は、いまは出ていません。海面の変動が続くことがあります。\n", cause)
	default:
		title = tsunamiLabels[level]
		icon := "🌊"
		if level >= TsunamiWarning {
			icon = "🚨🌊"
		}
		fmt.Fprintf(&b, "%s **%s**\n%sによる津波の情報です。\n", icon, title, cause)
		if r.Headline != "" {
			b.WriteString(r.Headline + "\n")
		}
		others := 0
		for _, l := range []int{TsunamiMajor, TsunamiWarning, TsunamiAdvisory} {
			var parts []string
			for _, a := range r.Areas {
				if a.Level() != l {
					continue
				}
				if !a.InAreas(areas) {
					others++
					continue
				}
				part := a.Name
				var detail []string
				if a.Arrival != "" {
					detail = append(detail, "第1波 "+a.Arrival)
				}
				if a.Height != "" {
					detail = append(detail, "予想高さ "+a.Height)
				}
				if len(detail) > 0 {
					part += "（" + strings.Join(detail, "、") + "）"
				}
				parts = append(parts, part)
			}
			if len(parts) > 0 {
				fmt.Fprintf(&b, "【%s】%s\n", tsunamiLabels[l], strings.Join(parts, "、"))
			}
		}
		if others > 0 {
			fmt.Fprintf(&b, "（ほかの沿岸の%d区域にも警報・注意報）\n", others)
		}
		if level >= TsunamiWarning {
			b.WriteString("海岸や川の河口付近から離れ、高い所へ避難してください。\n")
		}
	}
	fmt.Fprintf(&b, "（%s　%s発表）\n%s", r.Entry.Title, jaTime(r.Entry.ReportedAt), Source)
	return Post{Title: title + " " + cause, Content: clip(b.String())}
}

// Relevant reports whether the report has a warning or advisory for an
// area of interest (empty: all).
func (r TsunamiReport) Relevant(areas []string) bool {
	for _, a := range r.Areas {
		if a.Level() > TsunamiNone && a.InAreas(areas) {
			return true
		}
	}
	return false
}

// OfficeName is the prefecture of an office code (130000 東京都).
func OfficeName(office string) string {
	if len(office) >= 2 {
		if n := jma.PrefectureName(office[:2]); n != "" {
			return n
		}
	}
	return office
}

// WarningPost is the message of one warning of w (by code): the areas it
// is in force for, or, cleared, that it is lifted — or replaced by the same
// phenomenon at another level (w.Successor), which has a message of its own.
func WarningPost(w Warnings, code string, cleared bool, names map[string]string) Post {
	name, level, _ := WarningName(code)
	office := OfficeName(w.Office)
	next := ""
	if cleared {
		next = w.Successor(code)
	}
	nextName, nextLevel, _ := WarningName(next)
	var b strings.Builder
	switch {
	case next != "" && nextLevel > level:
		fmt.Fprintf(&b, "⬆️ **%sは%sに切り替えられました**（%s）\n", name, nextName, office)
	case next != "":
		fmt.Fprintf(&b, "⬇️ **%sは%sに切り替えられました**（%s）\n", name, nextName, office)
	case cleared:
		fmt.Fprintf(&b, "✅ **%sは解除されました**（%s）\n", name, office)
	case level == LevelSpecial:
		fmt.Fprintf(&b, "🟪 **%s**（%s）\nただちに命を守る行動をとってください。\n", name, office)
	case level == LevelWarning:
		fmt.Fprintf(&b, "⚠️ **%s**（%s）\n", name, office)
	default:
		fmt.Fprintf(&b, "🟨 **%s**（%s）\n", name, office)
	}
	if !cleared {
		var areas []string
		for _, a := range w.Active[code] {
			if n := names[a]; n != "" {
				areas = append(areas, n)
			} else {
				areas = append(areas, a)
			}
		}
		if len(areas) > 0 {
			fmt.Fprintf(&b, "対象：%s\n", strings.Join(areas, "、"))
		}
		if w.Headline != "" {
			b.WriteString(w.Headline + "\n")
		}
	}
	fmt.Fprintf(&b, "（%s発表）\n%s", jaTime(w.ReportedAt), Source)
	title := name + "（" + office + "）"
	switch {
	case next != "":
		title += " → " + nextName
	case cleared:
		title += " 解除"
	}
	return Post{Title: title, Content: clip(b.String())}
}

// clip keeps s within maxPost characters, cutting at a line.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxPost {
		return s
	}
	r := []rune(s)
	cut := string(r[:maxPost-len([]rune("…\n"+Source))])
	if i := strings.LastIndex(cut, "\n"); i > 0 {
		cut = cut[:i]
	}
	return cut + "\n…\n" + Source
}
