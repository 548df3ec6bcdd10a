package weather

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The chart's golden files are PNGs compared pixel by pixel with a
// tolerance, so a change in font rasterisation or PNG encoding between
// library versions does not fail the test while a moved bar or line does.
// Run with -update to rewrite them, and look at them before committing.
func TestChartGolden(t *testing.T) {
	for _, tc := range []struct {
		name, fixture, now, golden string
	}{
		{"morning", "forecast_130000_05.json", "2025-06-10 06:30", "chart_05_morning.png"},
		{"noon", "forecast_130000_11.json", "2025-06-10 12:30", "chart_11_noon.png"},
		{"evening", "forecast_130000_17.json", "2025-06-10 18:00", "chart_17_evening.png"},
		{"missing data", "forecast_130000_missing.json", "2025-06-10 18:00", "chart_17_missing.png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := load(t, tc.fixture)
			b, ok, err := Chart(f, jst(tc.now))
			if err != nil || !ok {
				t.Fatalf("Chart: ok=%v err=%v", ok, err)
			}
			got := decodePNG(t, b)
			if got.Bounds() != image.Rect(0, 0, ChartWidth, ChartHeight) {
				t.Fatalf("size %v, want %dx%d", got.Bounds(), ChartWidth, ChartHeight)
			}
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if n, frac := pixelDiff(got, decodePNG(t, want)); frac > 0.002 {
				out := filepath.Join(t.TempDir(), tc.golden)
				_ = os.WriteFile(out, b, 0o644)
				t.Errorf("%d pixels (%.2f%%) differ from %s; got %s", n, frac*100, path, out)
			}
		})
	}
}

func TestChartGapsAndZeros(t *testing.T) {
	f := load(t, "forecast_130000_05.json")
	now := jst("2025-06-10 06:30")
	base := renderRGBA(t, f, now)

	// The 12–18 block of the first day, as the chart draws it.
	day := f.Days[0]
	idx := -1
	for i, b := range day.Pops {
		if b.Start.In(JST).Hour() == 12 {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatal("fixture has no 12-18 block on the first day")
	}
	slotW := float64(chartRight-chartLeft) / float64(len(chartDays(f, now))) / 4
	x := int(chartLeft + slotW*2.5)

	missing := *f
	missing.Days = append([]Day(nil), f.Days...)
	missing.Days[0].Pops = append([]Block(nil), day.Pops...)
	missing.Days[0].Pops[idx].Percent = Value{}
	gap := renderRGBA(t, &missing, now)

	zero := *f
	zero.Days = append([]Day(nil), f.Days...)
	zero.Days[0].Pops = append([]Block(nil), day.Pops...)
	zero.Days[0].Pops[idx].Percent = Value{N: 0, Valid: true}
	zeroImg := renderRGBA(t, &zero, now)

	// Just above the axis: a 0 % bar is drawn there (a thin bar), a missing
	// block leaves the background.
	y := rainBottom - 1
	if got := gap.RGBAAt(x, y); got != colBackground {
		t.Errorf("missing block: pixel above the axis is %v, want the background (a gap)", got)
	}
	if got := zeroImg.RGBAAt(x, y); got != colRain {
		t.Errorf("0%% block: pixel above the axis is %v, want the bar colour", got)
	}
	if day.Pops[idx].Percent.Valid && day.Pops[idx].Percent.N >= 10 {
		if got := base.RGBAAt(x, int(rainY(day.Pops[idx].Percent.N/2))); got != colRain {
			t.Errorf("%d%% block: mid-bar pixel is %v, want the bar colour", day.Pops[idx].Percent.N, got)
		}
	}
}

func TestChartNothingToDraw(t *testing.T) {
	f := load(t, "forecast_130000_05.json")
	if _, ok, err := Chart(f, jst("2025-07-01 06:30")); ok || err != nil {
		t.Fatalf("a forecast with no day from now on: ok=%v err=%v, want no chart", ok, err)
	}
}

func renderRGBA(t *testing.T, f *Forecast, now time.Time) *image.RGBA {
	t.Helper()
	b, ok, err := Chart(f, now)
	if err != nil || !ok {
		t.Fatalf("Chart: ok=%v err=%v", ok, err)
	}
	img := decodePNG(t, b)
	rgba := image.NewRGBA(img.Bounds())
	for y := range img.Bounds().Dy() {
		for x := range img.Bounds().Dx() {
			rgba.Set(x, y, img.At(x, y))
		}
	}
	return rgba
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	return img
}

// pixelDiff counts the pixels whose colour differs by more than a small
// amount in any channel, and their share of the image.
func pixelDiff(a, b image.Image) (int, float64) {
	if a.Bounds() != b.Bounds() {
		return a.Bounds().Dx() * a.Bounds().Dy(), 1
	}
	const tol = 24 << 8 // in 16-bit channel units
	n := 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if absDiff(r1, r2) > tol || absDiff(g1, g2) > tol || absDiff(b1, b2) > tol {
				n++
			}
		}
	}
	return n, float64(n) / float64(r.Dx()*r.Dy())
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func BenchmarkChart(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "forecast_130000_05.json"))
	if err != nil {
		b.Fatal(err)
	}
	f, err := Parse(raw, "")
	if err != nil {
		b.Fatal(err)
	}
	now := jst("2025-06-10 06:30")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Chart(f, now); err != nil {
			b.Fatal(err)
		}
	}
}
