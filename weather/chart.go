package weather

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strings"
	"sync"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// ChartWidth and ChartHeight are the size of the forecast chart in pixels.
const (
	ChartWidth  = 960
	ChartHeight = 480
)

// ChartFilename is the name the chart is attached under.
const ChartFilename = "forecast.png"

// maxChartDays bounds the columns: the short-range forecast has three days.
const maxChartDays = 4

// The chart is an opaque light card with dark text, so it reads the same
// on Discord's light and dark themes. The labels are ASCII and digits: the
// Go fonts have no Japanese glyphs (the post's text carries the Japanese).
var (
	colBackground = color.RGBA{0xfb, 0xfa, 0xf6, 0xff}
	colText       = color.RGBA{0x21, 0x25, 0x29, 0xff}
	colMuted      = color.RGBA{0x6c, 0x73, 0x7a, 0xff}
	colGrid       = color.RGBA{0xde, 0xe2, 0xe6, 0xff}
	colMax        = color.RGBA{0xd9, 0x48, 0x0f, 0xff}
	colMin        = color.RGBA{0x19, 0x71, 0xc2, 0xff}
	colRain       = color.RGBA{0x4d, 0xab, 0xf7, 0xff}
	colSun        = color.RGBA{0xf5, 0x9f, 0x00, 0xff}
	colCloud      = color.RGBA{0x86, 0x8e, 0x96, 0xff}
	colCloudLight = color.RGBA{0xad, 0xb5, 0xbd, 0xff}
	colSnow       = color.RGBA{0x74, 0xc0, 0xfc, 0xff}
)

// Layout, in pixels.
const (
	chartLeft      = 64  // room for the rain axis labels
	chartRight     = 936 // right edge of the day columns
	headTop        = 16
	dayTop         = 56  // date, icon, label and laundry index
	tempTop        = 150 // temperature lines
	tempBottom     = 296
	rainTop        = 322 // rain-chance bars; 100 % is here
	rainBottom     = 426 // and 0 % here
	blockLabelTop  = 430
	footerBaseline = 468
)

type chartFonts struct{ regular, bold *opentype.Font }

var parsedFonts = sync.OnceValues(func() (chartFonts, error) {
	r, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return chartFonts{}, err
	}
	b, err := opentype.Parse(gobold.TTF)
	if err != nil {
		return chartFonts{}, err
	}
	return chartFonts{regular: r, bold: b}, nil
})

// Chart draws the forecast from now's date on as a PNG of ChartWidth ×
// ChartHeight: per day the date, a weather icon with a short label and the
// laundry index; the maximum and minimum temperatures as lines with their
// values; the chance of rain per six-hour block as bars. A value JMA left
// out leaves a gap, never a zero. ok is false when the forecast has no day
// from now on.
func Chart(f *Forecast, now time.Time) (chart []byte, ok bool, err error) {
	days := chartDays(f, now)
	if len(days) == 0 {
		return nil, false, nil
	}
	fonts, err := parsedFonts()
	if err != nil {
		return nil, false, fmt.Errorf("chart: load fonts: %w", err)
	}
	c, err := newCanvas(fonts)
	if err != nil {
		return nil, false, err
	}
	c.draw(f, days)
	b, err := c.encode()
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

func chartDays(f *Forecast, now time.Time) []Day {
	from := midnight(now)
	var days []Day
	for _, d := range f.Days {
		if d.Date.Before(from) {
			continue
		}
		days = append(days, d)
		if len(days) == maxChartDays {
			break
		}
	}
	return days
}

type canvas struct {
	img    *image.RGBA
	ras    vector.Rasterizer
	title  font.Face
	label  font.Face
	small  font.Face
	value  font.Face
	colW   float64
	nDays  int
	poly   []point // scratch for shapes
	tempLo float64
	tempHi float64
}

type point struct{ x, y float64 }

func newCanvas(fonts chartFonts) (*canvas, error) {
	face := func(f *opentype.Font, size float64) (font.Face, error) {
		return opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	}
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, ChartWidth, ChartHeight))}
	var err error
	if c.title, err = face(fonts.bold, 20); err != nil {
		return nil, fmt.Errorf("chart: font: %w", err)
	}
	if c.label, err = face(fonts.bold, 16); err != nil {
		return nil, fmt.Errorf("chart: font: %w", err)
	}
	if c.value, err = face(fonts.bold, 15); err != nil {
		return nil, fmt.Errorf("chart: font: %w", err)
	}
	if c.small, err = face(fonts.regular, 13); err != nil {
		return nil, fmt.Errorf("chart: font: %w", err)
	}
	draw.Draw(c.img, c.img.Bounds(), image.NewUniform(colBackground), image.Point{}, draw.Src)
	return c, nil
}

func (c *canvas) encode() ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(64 << 10)
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, c.img); err != nil {
		return nil, fmt.Errorf("chart: encode png: %w", err)
	}
	return buf.Bytes(), nil
}

func (c *canvas) draw(f *Forecast, days []Day) {
	c.nDays = len(days)
	c.colW = float64(chartRight-chartLeft) / float64(len(days))
	c.header(f, days)
	c.grid()
	for i, d := range days {
		c.dayHead(i, d)
	}
	c.temperatures(days)
	c.rain(days)
}

// colX is the centre of day column i.
func (c *canvas) colX(i int) float64 { return chartLeft + c.colW*(float64(i)+0.5) }

func (c *canvas) header(f *Forecast, days []Day) {
	first, last := days[0].Date, days[len(days)-1].Date
	title := "Weather forecast " + first.Format("Jan 2")
	if !last.Equal(first) {
		title += " - " + last.Format("Jan 2")
	}
	c.text(c.title, colText, 24, headTop+20, title, alignLeft)
	var issued string
	if !f.ReportTime.IsZero() {
		issued = "Issued " + f.ReportTime.In(JST).Format("Jan 2 15:04") + " JST"
	}
	if f.AreaCode != "" {
		issued += "  Area " + f.AreaCode
	}
	c.text(c.small, colMuted, ChartWidth-24, headTop+18, issued, alignRight)
	// Footer: what the lines and bars are, and where the data comes from.
	x, y := 24.0, float64(footerBaseline)
	for _, l := range []struct {
		col   color.RGBA
		label string
	}{{colMax, "max °C"}, {colMin, "min °C"}} {
		c.line(x, y-4, x+22, y-4, 3, l.col)
		c.text(c.small, colMuted, x+28, y, l.label, alignLeft)
		x += 88
	}
	c.rect(x, y-11, 12, 12, colRain)
	c.text(c.small, colMuted, x+18, y, "chance of rain per 6 h", alignLeft)
	c.text(c.small, colMuted, ChartWidth-24, y, "Source: JMA", alignRight)
}

func (c *canvas) grid() {
	// Column separators.
	for i := 1; i < c.nDays; i++ {
		x := chartLeft + c.colW*float64(i)
		c.rect(x, dayTop, 1, blockLabelTop+18-dayTop, colGrid)
	}
	// Rain axis at 0, 50 and 100 %.
	for _, pct := range []int{0, 50, 100} {
		y := rainY(pct)
		col := colGrid
		if pct == 0 {
			col = colMuted
		}
		c.rect(chartLeft, y, chartRight-chartLeft, 1, col)
		c.text(c.small, colMuted, chartLeft-8, y+5, fmt.Sprintf("%d%%", pct), alignRight)
	}
}

func rainY(pct int) float64 {
	return rainBottom - float64(pct)/100*(rainBottom-rainTop)
}

func (c *canvas) dayHead(i int, d Day) {
	cx := c.colX(i)
	date := d.Date.Format("Mon 1/2")
	if d.Tonight {
		date += " tonight"
	}
	c.text(c.label, colText, cx, dayTop+18, date, alignCenter)
	fam, later, sep := codeFamilies(d.Code)
	c.icon(cx-70, dayTop+28, fam, later)
	label := familyName(fam)
	if later != "" {
		label += sep + familyName(later)
	}
	if label == "" {
		label = "no data"
	}
	lx := cx - 6
	c.text(c.small, colText, lx, dayTop+48, label, alignLeft)
	laundry := "Laundry -"
	if l, ok := ComputeLaundry(d); ok && !d.Tonight {
		laundry = fmt.Sprintf("Laundry %d", l.Index)
	}
	c.text(c.small, colMuted, lx, dayTop+68, laundry, alignLeft)
}

// codeFamilies reads a JMA weather code as its main weather family (sun,
// cloud, rain, snow) and, when the short label names another, that one and
// how it joins ("then" for 後, "/" for 時々 and 一時).
func codeFamilies(code string) (main, other, sep string) {
	if code == "" {
		return "", "", ""
	}
	switch code[0] {
	case '1':
		main = "sun"
	case '2':
		main = "cloud"
	case '3':
		main = "rain"
	case '4':
		main = "snow"
	default:
		return "", "", ""
	}
	label := []rune(telops[code])
	if len(label) < 2 {
		return main, "", ""
	}
	for _, r := range label[1:] {
		var fam string
		switch r {
		case '晴':
			fam = "sun"
		case '曇':
			fam = "cloud"
		case '雨':
			fam = "rain"
		case '雪':
			fam = "snow"
		}
		if fam != "" && fam != main {
			other = fam
			break
		}
	}
	if other == "" {
		return main, "", ""
	}
	sep = " / "
	if strings.ContainsRune(string(label), '後') {
		sep = " then "
	}
	return main, other, sep
}

func familyName(fam string) string {
	switch fam {
	case "sun":
		return "Sunny"
	case "cloud":
		return "Cloudy"
	case "rain":
		return "Rain"
	case "snow":
		return "Snow"
	}
	return ""
}

// icon draws the main family's symbol at (x, y) (a 48 px box), and the other
// family's, smaller, at its lower right.
func (c *canvas) icon(x, y float64, main, other string) {
	if main == "" {
		c.text(c.label, colMuted, x+24, y+30, "?", alignCenter)
		return
	}
	c.symbol(x+22, y+22, 1, main)
	if other != "" {
		c.symbol(x+42, y+36, 0.55, other)
	}
}

func (c *canvas) symbol(cx, cy, s float64, fam string) {
	switch fam {
	case "sun":
		for k := range 8 {
			a := float64(k) * math.Pi / 4
			c.line(cx+math.Cos(a)*13*s, cy+math.Sin(a)*13*s, cx+math.Cos(a)*19*s, cy+math.Sin(a)*19*s, 2.5*s, colSun)
		}
		c.circle(cx, cy, 10*s, colSun)
	case "cloud":
		c.cloud(cx, cy, s, colCloud)
	case "rain":
		c.cloud(cx, cy-5*s, s, colCloudLight)
		for k := -1; k <= 1; k++ {
			x := cx + float64(k)*8*s
			c.line(x+2*s, cy+8*s, x-2*s, cy+17*s, 2.5*s, colRain)
		}
	case "snow":
		c.cloud(cx, cy-5*s, s, colCloudLight)
		for k := -1; k <= 1; k++ {
			c.circle(cx+float64(k)*8*s, cy+13*s, 2.8*s, colSnow)
		}
	}
}

func (c *canvas) cloud(cx, cy, s float64, col color.RGBA) {
	c.circle(cx-8*s, cy+3*s, 8*s, col)
	c.circle(cx+2*s, cy-3*s, 10*s, col)
	c.circle(cx+11*s, cy+4*s, 7*s, col)
	c.rect(cx-8*s, cy+4*s, 19*s, 7*s, col)
}

func (c *canvas) temperatures(days []Day) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range days {
		for _, v := range []Value{d.Min, d.Max} {
			if v.Valid {
				lo, hi = math.Min(lo, float64(v.N)), math.Max(hi, float64(v.N))
			}
		}
	}
	if math.IsInf(lo, 1) {
		c.text(c.small, colMuted, (chartLeft+chartRight)/2, (tempTop+tempBottom)/2, "no temperatures in this report", alignCenter)
		return
	}
	// At least 8 degrees of range, so a flat day does not look dramatic.
	if hi-lo < 8 {
		mid := (hi + lo) / 2
		lo, hi = mid-4, mid+4
	}
	c.tempLo, c.tempHi = lo, hi
	c.series(days, func(d Day) Value { return d.Max }, colMax, -12)
	c.series(days, func(d Day) Value { return d.Min }, colMin, 24)
}

func (c *canvas) tempY(t int) float64 {
	const pad = 22 // room for the value labels inside the band
	return tempBottom - pad - (float64(t)-c.tempLo)/(c.tempHi-c.tempLo)*(tempBottom-tempTop-2*pad)
}

// series draws one temperature line: a segment only between two days that
// both have a value, a dot and the number at every value.
func (c *canvas) series(days []Day, get func(Day) Value, col color.RGBA, labelDY float64) {
	for i := 1; i < len(days); i++ {
		a, b := get(days[i-1]), get(days[i])
		if a.Valid && b.Valid {
			c.line(c.colX(i-1), c.tempY(a.N), c.colX(i), c.tempY(b.N), 3, col)
		}
	}
	for i, d := range days {
		v := get(d)
		if !v.Valid {
			continue
		}
		x, y := c.colX(i), c.tempY(v.N)
		c.circle(x, y, 5.5, col)
		c.circle(x, y, 2.5, colBackground)
		c.text(c.value, col, x, y+labelDY, fmt.Sprintf("%d°C", v.N), alignCenter)
	}
}

func (c *canvas) rain(days []Day) {
	slotW := c.colW / 4
	barW := math.Min(slotW*0.62, 44)
	for i, d := range days {
		left := chartLeft + c.colW*float64(i)
		for s := range 4 {
			x := left + slotW*(float64(s)+0.5)
			c.text(c.small, colMuted, x, blockLabelTop+13, fmt.Sprintf("%d-%d", s*6, s*6+6), alignCenter)
		}
		for _, b := range d.Pops {
			if !b.Percent.Valid {
				continue // missing: a gap, never a zero
			}
			s := b.Start.In(JST).Hour() / 6
			x := left + slotW*(float64(s)+0.5)
			pct := min(max(b.Percent.N, 0), 100)
			top := rainY(pct)
			// Zero is a value: a thin bar on the axis says "0", a gap says "unknown".
			c.rect(x-barW/2, math.Min(top, rainBottom-2), barW, math.Max(rainBottom-top, 2), colRain)
			c.text(c.small, colText, x, top-5, fmt.Sprintf("%d%%", pct), alignCenter)
		}
	}
}

type align int

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// text draws s with its baseline at y, aligned on x.
func (c *canvas) text(face font.Face, col color.RGBA, x, y float64, s string, a align) {
	d := font.Drawer{Dst: c.img, Src: image.NewUniform(col), Face: face}
	w := float64(d.MeasureString(s)) / 64
	switch a {
	case alignCenter:
		x -= w / 2
	case alignRight:
		x -= w
	}
	d.Dot = fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.Int26_6(math.Round(y * 64))}
	d.DrawString(s)
}

func (c *canvas) rect(x, y, w, h float64, col color.RGBA) {
	c.fill(col, point{x, y}, point{x + w, y}, point{x + w, y + h}, point{x, y + h})
}

func (c *canvas) line(x0, y0, x1, y1, width float64, col color.RGBA) {
	dx, dy := x1-x0, y1-y0
	n := math.Hypot(dx, dy)
	if n == 0 {
		return
	}
	// The normal, half the width long; the caps are round.
	nx, ny := -dy/n*width/2, dx/n*width/2
	c.fill(col, point{x0 + nx, y0 + ny}, point{x1 + nx, y1 + ny}, point{x1 - nx, y1 - ny}, point{x0 - nx, y0 - ny})
	c.circle(x0, y0, width/2, col)
	c.circle(x1, y1, width/2, col)
}

func (c *canvas) circle(cx, cy, r float64, col color.RGBA) {
	const n = 28
	pts := c.poly[:0]
	for k := range n {
		a := 2 * math.Pi * float64(k) / n
		pts = append(pts, point{cx + r*math.Cos(a), cy + r*math.Sin(a)})
	}
	c.poly = pts
	c.fill(col, pts...)
}

// fill paints the polygon anti-aliased. The rasteriser covers only the
// polygon's bounding box, which keeps each shape cheap.
func (c *canvas) fill(col color.RGBA, pts ...point) {
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		minX, minY = math.Min(minX, p.x), math.Min(minY, p.y)
		maxX, maxY = math.Max(maxX, p.x), math.Max(maxY, p.y)
	}
	r := image.Rect(int(math.Floor(minX)), int(math.Floor(minY)), int(math.Ceil(maxX)), int(math.Ceil(maxY)))
	if r.Empty() {
		return
	}
	ox, oy := float32(r.Min.X), float32(r.Min.Y)
	c.ras.Reset(r.Dx(), r.Dy())
	c.ras.DrawOp = draw.Over
	c.ras.MoveTo(float32(pts[0].x)-ox, float32(pts[0].y)-oy)
	for _, p := range pts[1:] {
		c.ras.LineTo(float32(p.x)-ox, float32(p.y)-oy)
	}
	c.ras.ClosePath()
	c.ras.Draw(c.img, r, image.NewUniform(col), image.Point{})
}
