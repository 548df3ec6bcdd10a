package weather

import (
	"fmt"
	"strings"
	"time"
)

// Source is the attribution every post carries.
const Source = "出典：気象庁"

// maxComment bounds the model's comment so a post stays well under
// Discord's 2,000 characters.
const maxComment = 300

// Describe is the facts of one day, one per line: weather, rain chances,
// temperatures, wind and the laundry index with its band and factors.
func Describe(d Day) string {
	var b strings.Builder
	weather := d.Weather
	if weather == "" {
		weather = telops[d.Code] // JMA's short label when the sentence is missing
	}
	if weather == "" {
		weather = "不明"
	}
	if d.Tonight {
		weather = "今夜 " + weather
	}
	fmt.Fprintf(&b, "天気：%s\n", weather)

	if len(d.Pops) > 0 {
		parts := make([]string, len(d.Pops))
		for i, p := range d.Pops {
			pct := "—"
			if p.Percent.Valid {
				pct = fmt.Sprintf("%d%%", p.Percent.N)
			}
			h := p.Start.In(JST).Hour()
			parts[i] = fmt.Sprintf("%02d-%02d時 %s", h, h+6, pct)
		}
		fmt.Fprintf(&b, "降水確率：%s\n", strings.Join(parts, "／"))
	} else {
		b.WriteString("降水確率：—\n")
	}
	fmt.Fprintf(&b, "気温：最低 %s／最高 %s\n", temp(d.Min), temp(d.Max))
	wind := d.Wind
	if wind == "" {
		wind = "—"
	}
	fmt.Fprintf(&b, "風：%s\n", wind)
	if l, ok := ComputeLaundry(d); ok && !d.Tonight {
		fmt.Fprintf(&b, "洗濯指数：%d（%s）\n", l.Index, l.Band)
		fmt.Fprintf(&b, "　内訳：%s\n", l.Factors())
	} else {
		b.WriteString("洗濯指数：—（データ不足）\n")
	}
	return b.String()
}

func temp(v Value) string {
	if !v.Valid {
		return "—"
	}
	return fmt.Sprintf("%d℃", v.N)
}

// Title is the heading of a day's post, e.g. "6月10日(火) 東京地方の天気".
func Title(f *Forecast, d Day) string {
	return fmt.Sprintf("%s %sの天気", jaDate(d.Date), f.Area)
}

// FormatPost is the scheduled post for day d: an optional comment (from
// the model; trimmed), the title, the facts and the attribution.
func FormatPost(f *Forecast, d Day, comment string) string {
	var b strings.Builder
	if c := trimRunes(strings.TrimSpace(comment), maxComment); c != "" {
		b.WriteString(c)
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "**%s**\n", Title(f, d))
	b.WriteString(Describe(d))
	b.WriteString(Source)
	return b.String()
}

// UnavailablePost is posted when the forecast could not be fetched even
// after retries.
func UnavailablePost(now time.Time) string {
	return fmt.Sprintf("⚠️ %sの天気予報を気象庁から取得できませんでした。時間をおいて気象庁のサイトなどで確認してください。", jaDate(now))
}

// Facts describes the forecast from now on (the rest of today, tomorrow,
// …) and JMA's overview, for a model's system message.
func Facts(f *Forecast, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "気象庁の天気予報（%s、%s発表）\n", f.Area, f.ReportTime.In(JST).Format("1月2日15時"))
	from := midnight(now)
	if now.In(JST).Hour() >= 18 {
		from = from.AddDate(0, 0, 1) // today's daytime is over
	}
	for _, d := range f.Days {
		if d.Date.Before(from) {
			continue
		}
		fmt.Fprintf(&b, "\n■ %s\n", jaDate(d.Date))
		b.WriteString(Describe(d.upcoming(now)))
	}
	if f.Headline != "" {
		fmt.Fprintf(&b, "\n見出し：%s\n", f.Headline)
	}
	if f.Overview != "" {
		fmt.Fprintf(&b, "\n概況：\n%s\n", f.Overview)
	}
	b.WriteString("\n" + Source)
	return b.String()
}

func trimRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
