package weather

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Laundry is the laundry index (洗濯指数) of a day with the factors it was
// computed from, so a post can show its working.
//
// JMA gives no humidity or sunshine, so the index is built from what it
// does give:
//
//	base      by weather code family: 1xx sunny 70, 2xx cloudy 45, 3xx rain 15, 4xx snow 10
//	+ temp    clamp((Tmax − 15) × 1.5, −15, +15); 0 when Tmax is missing
//	− rain    0.6 × the highest rain chance of the daytime blocks (06–12, 12–18)
//	+ wind    やや強く +5, 強く −5 (from the wind text)
//	cap 50    when the code says rain comes later (晴後雨, 曇後一時雨, …)
//
// then clamped to 0–100 and rounded to a multiple of 10.
type Laundry struct {
	Index int    // 0–100, a multiple of 10
	Band  string // よく乾く, 乾く, 厚手は部屋干し, 乾きにくい, 部屋干し推奨

	Family    string  // 晴れ, くもり, 雨 or 雪
	Base      float64 // from the weather code family
	Temp      float64 // temperature term; 0 without a maximum
	TempKnown bool
	Rain      float64 // rain term (≤ 0)
	RainMax   Value   // the highest daytime rain chance used
	Wind      float64 // wind term
	RainLater bool    // the code says rain comes later: capped at 50
	Raw       float64 // the sum before the cap, the clamp and the rounding
}

// ComputeLaundry computes the laundry index of d. ok is false when the
// weather code is missing or unknown: without it there is no base.
func ComputeLaundry(d Day) (l Laundry, ok bool) {
	switch {
	case strings.HasPrefix(d.Code, "1"):
		l.Family, l.Base = "晴れ", 70
	case strings.HasPrefix(d.Code, "2"):
		l.Family, l.Base = "くもり", 45
	case strings.HasPrefix(d.Code, "3"):
		l.Family, l.Base = "雨", 15
	case strings.HasPrefix(d.Code, "4"):
		l.Family, l.Base = "雪", 10
	default:
		return Laundry{}, false
	}
	if d.Max.Valid {
		l.TempKnown = true
		l.Temp = clamp((float64(d.Max.N)-15)*1.5, -15, 15)
	}
	l.RainMax = d.DaytimeRain
	if l.RainMax.Valid {
		l.Rain = -0.6 * float64(l.RainMax.N)
	}
	switch {
	case strings.Contains(d.Wind, "やや強く"):
		l.Wind = 5
	case strings.Contains(d.Wind, "強く"):
		l.Wind = -5
	}
	l.RainLater = rainLater(d.Code)
	l.Raw = l.Base + l.Temp + l.Rain + l.Wind
	v := l.Raw
	if l.RainLater {
		v = math.Min(v, 50)
	}
	l.Index = int(math.Round(clamp(v, 0, 100)/10) * 10)
	l.Band = band(l.Index)
	return l, true
}

// rainLater reports whether the code's label has rain after a 後
// ("later"): 晴後雨, 曇後一時雨, 晴午後は雷雨, 雪後雨, ….
func rainLater(code string) bool {
	_, after, ok := strings.Cut(telops[code], "後")
	return ok && strings.Contains(after, "雨")
}

func band(index int) string {
	switch {
	case index >= 80:
		return "よく乾く"
	case index >= 60:
		return "乾く"
	case index >= 40:
		return "厚手は部屋干し"
	case index >= 20:
		return "乾きにくい"
	default:
		return "部屋干し推奨"
	}
}

// Factors is the working of the index in one line, e.g.
// "晴れ 70 ＋ 気温 +4.5 ＋ 降水 -12 ＋ 風 +5 = 67.5 → 70".
func (l Laundry) Factors() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", l.Family, num(l.Base))
	if l.TempKnown {
		fmt.Fprintf(&b, " ＋ 気温 %s", signed(l.Temp))
	} else {
		b.WriteString(" ＋ 気温 不明 0")
	}
	if l.RainMax.Valid {
		fmt.Fprintf(&b, " ＋ 降水%d%% %s", l.RainMax.N, signed(l.Rain))
	} else {
		b.WriteString(" ＋ 降水 不明 0")
	}
	if l.Wind != 0 {
		fmt.Fprintf(&b, " ＋ 風 %s", signed(l.Wind))
	}
	fmt.Fprintf(&b, " = %s", num(l.Raw))
	if l.RainLater && l.Raw > 50 {
		b.WriteString("（後から雨のため上限50）")
	}
	fmt.Fprintf(&b, " → %d", l.Index)
	return b.String()
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func signed(v float64) string {
	if v == 0 {
		return "0"
	}
	if v > 0 {
		return "+" + num(v)
	}
	return num(v)
}

// weekdays are the Japanese day-of-week marks, Sunday first.
var weekdays = [...]string{"日", "月", "火", "水", "木", "金", "土"}

// jaDate formats t as "6月10日(火)".
func jaDate(t time.Time) string {
	t = t.In(JST)
	return fmt.Sprintf("%d月%d日(%s)", t.Month(), t.Day(), weekdays[t.Weekday()])
}
