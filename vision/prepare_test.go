package vision_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/vision"
	"github.com/yorozu-bot/yorozu/vision/visiontest"
)

// sent decodes what Prepare produced, as the model would.
func sent(t *testing.T, img vision.Image) image.Image {
	t.Helper()
	out, err := jpeg.Decode(bytes.NewReader(img.JPEG))
	if err != nil {
		t.Fatalf("the prepared image is not a JPEG: %v", err)
	}
	if b := out.Bounds(); b.Dx() != img.Width || b.Dy() != img.Height {
		t.Fatalf("JPEG is %v, Image says %d×%d", b, img.Width, img.Height)
	}
	return out
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestPrepareScalesEveryFormat(t *testing.T) {
	tests := []struct {
		name         string
		data         []byte
		format       string
		srcW, srcH   int
		wantW, wantH int
	}{
		{"large PNG", visiontest.LargePNG(), "png", 4000, 3000, 1024, 768},
		{"portrait JPEG with odd sides", visiontest.JPEG(1101, 2201), "jpeg", 1101, 2201, 512, 1024},
		{"small JPEG keeps its size", visiontest.JPEG(640, 480), "jpeg", 640, 480, 640, 480},
		{"just over the side", visiontest.PNG(1025, 10), "png", 1025, 10, 1024, 10},
		{"GIF", visiontest.GIF(2100, 700, color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}), "gif", 2100, 700, 1024, 341},
		{"lossy WebP", readFile(t, "testdata/blue-purple-pink.lossy.webp"), "webp", 0, 0, 0, 0},
		{"lossless WebP with alpha", readFile(t, "testdata/gopher-doc.with-alpha.lossless.webp"), "webp", 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img, err := vision.Prepare(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if img.Format != tc.format {
				t.Errorf("format %q, want %q", img.Format, tc.format)
			}
			if tc.srcW != 0 && (img.SourceWidth != tc.srcW || img.SourceHeight != tc.srcH) {
				t.Errorf("source %d×%d, want %d×%d", img.SourceWidth, img.SourceHeight, tc.srcW, tc.srcH)
			}
			if tc.wantW != 0 && (img.Width != tc.wantW || img.Height != tc.wantH) {
				t.Errorf("sent %d×%d, want %d×%d", img.Width, img.Height, tc.wantW, tc.wantH)
			}
			if max(img.Width, img.Height) > vision.MaxSide {
				t.Errorf("sent %d×%d, longer than %d", img.Width, img.Height, vision.MaxSide)
			}
			sent(t, img)
		})
	}
}

// The picture survives the scaling: the colours of a gradient stay where
// they were, and a GIF shows its first frame.
func TestPrepareKeepsThePicture(t *testing.T) {
	img, err := vision.Prepare(visiontest.GIF(2100, 700, color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}))
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, _ := sent(t, img).At(500, 170).RGBA()
	if r>>8 < 200 || g>>8 > 60 || b>>8 > 60 {
		t.Errorf("GIF centre is rgb(%d,%d,%d), want the first frame's red", r>>8, g>>8, b>>8)
	}

	img, err = vision.Prepare(visiontest.LargePNG())
	if err != nil {
		t.Fatal(err)
	}
	out := sent(t, img)
	// gradient: red grows to the right, green downwards.
	r0, _, _, _ := out.At(10, 384).RGBA()
	r1, _, _, _ := out.At(1010, 384).RGBA()
	_, g0, _, _ := out.At(512, 10).RGBA()
	_, g1, _, _ := out.At(512, 757).RGBA()
	if r1>>8 < r0>>8+150 || g1>>8 < g0>>8+150 {
		t.Errorf("gradient lost: red %d→%d, green %d→%d", r0>>8, r1>>8, g0>>8, g1>>8)
	}
}

func TestPrepareGreyJPEG(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 2100, 1000))
	for i := range g.Pix {
		g.Pix[i] = uint8(i % g.Stride * 255 / g.Stride)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, g, nil); err != nil {
		t.Fatal(err)
	}
	img, err := vision.Prepare(b.Bytes())
	if err != nil || img.Width != 1024 || img.Height != 488 {
		t.Fatalf("grey JPEG: %d×%d, %v", img.Width, img.Height, err)
	}
	out := sent(t, img)
	l, _, _, _ := out.At(20, 200).RGBA()
	r, _, _, _ := out.At(1000, 200).RGBA()
	if l>>8 > 20 || r>>8 < 230 {
		t.Errorf("grey ramp became %d … %d", l>>8, r>>8)
	}
}

func TestPrepareFlattensTransparencyOnWhite(t *testing.T) {
	for _, size := range [][2]int{{300, 200}, {2100, 90}} {
		img, err := vision.Prepare(visiontest.TransparentPNG(size[0], size[1]))
		if err != nil {
			t.Fatal(err)
		}
		r, g, b, _ := sent(t, img).At(img.Width/2, img.Height/2).RGBA()
		if r>>8 < 250 || g>>8 < 250 || b>>8 < 250 {
			t.Errorf("%v: transparent pixel became rgb(%d,%d,%d), want white", size, r>>8, g>>8, b>>8)
		}
	}
}

// broken keeps the first half of an image file, then garbage.
func broken(data []byte) []byte {
	half := data[: len(data)/2 : len(data)/2]
	return append(half, bytes.Repeat([]byte{0xff, 0x00}, 64)...)
}

func TestPrepareRefuses(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"decompression bomb header", visiontest.BombPNG(20000, 20000), vision.ErrTooManyPixels},
		{"just over 16 M pixels", visiontest.BombPNG(4097, 4096), vision.ErrTooManyPixels},
		{"broken JPEG", broken(visiontest.JPEG(64, 64)), vision.ErrBroken},
		{"broken PNG", broken(visiontest.PNG(300, 300)), vision.ErrBroken},
		{"PNG header without pixels", visiontest.BombPNG(100, 100), vision.ErrBroken},
		{"not an image", []byte("%PDF-1.7 not a picture at all"), vision.ErrFormat},
		{"empty", nil, vision.ErrFormat},
		{"BMP", append([]byte("BM"), make([]byte, 60)...), vision.ErrFormat},
		{"over 10 MB", make([]byte, vision.MaxBytes+1), vision.ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := vision.Prepare(tc.data)
			if !errors.Is(err, tc.want) {
				t.Errorf("Prepare: %v, want %v", err, tc.want)
			}
		})
	}
}

// A header claiming 20,000×20,000 (1.6 GB as RGBA) is refused from its
// few bytes: nothing near the picture's size is allocated.
func TestBombIsRefusedWithoutDecoding(t *testing.T) {
	bomb := visiontest.BombPNG(20000, 20000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	img, err := vision.Prepare(bomb)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, vision.ErrTooManyPixels) || !strings.Contains(err.Error(), "20000×20000") {
		t.Fatalf("Prepare: %v", err)
	}
	if img.SourceWidth != 20000 || img.SourceHeight != 20000 || img.Format != "png" || img.JPEG != nil {
		t.Errorf("refused bomb = %d×%d %q with %d bytes, want the header's claim and nothing else",
			img.SourceWidth, img.SourceHeight, img.Format, len(img.JPEG))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing the bomb allocated %d bytes", n)
	}
}

func TestWhatCountsAsAnImage(t *testing.T) {
	tests := []struct {
		contentType, name string
		image, supported  bool
	}{
		{"image/png", "a.png", true, true},
		{"image/jpeg", "", true, true},
		{"image/jpg", "", true, true},
		{"image/webp", "x", true, true},
		{"image/gif", "x.gif", true, true},
		{"", "photo.JPG", true, true},
		{"", "photo.webp", true, true},
		{"image/svg+xml", "logo.svg", true, false},
		{"image/heic", "IMG_0001.HEIC", true, false},
		{"application/pdf", "doc.pdf", false, false},
		{"text/plain; charset=utf-8", "a.png", false, false},
		{"", "notes.txt", false, false},
		{"", "", false, false},
	}
	for _, tc := range tests {
		if got := vision.IsImage(tc.contentType, tc.name); got != tc.image {
			t.Errorf("IsImage(%q, %q) = %v", tc.contentType, tc.name, got)
		}
		if got := vision.Supported(tc.contentType, tc.name); got != tc.supported {
			t.Errorf("Supported(%q, %q) = %v", tc.contentType, tc.name, got)
		}
	}
}

func TestSize(t *testing.T) {
	tests := []struct{ w, h, wantW, wantH int }{
		{4000, 3000, 1024, 768},
		{3000, 4000, 768, 1024},
		{1024, 1024, 1024, 1024},
		{800, 600, 800, 600},
		{20000, 10, 1024, 1},
		{1920, 1080, 1024, 576},
	}
	for _, tc := range tests {
		if w, h := vision.Size(tc.w, tc.h); w != tc.wantW || h != tc.wantH {
			t.Errorf("Size(%d, %d) = %d×%d, want %d×%d", tc.w, tc.h, w, h, tc.wantW, tc.wantH)
		}
	}
}

// TestPrepareTurnsPhotosUpright: a photo whose EXIF says how to turn it
// reaches the model as a person would see it.
func TestPrepareTurnsPhotosUpright(t *testing.T) {
	red, blue := color.RGBA{R: 255, A: 255}, color.RGBA{B: 255, A: 255}
	for _, tc := range []struct {
		name        string
		orientation int
		w, h        int
		// The colours at the middle of the top and left edges, and of the
		// bottom and right edges.
		topLeft, bottomRight color.RGBA
		vertical             bool // the halves are top and bottom
	}{
		{"as stored", 1, 64, 32, red, blue, false},
		{"mirrored", 2, 64, 32, blue, red, false},
		{"turned 180°", 3, 64, 32, blue, red, false},
		{"upside down", 4, 64, 32, red, blue, false},
		{"transposed", 5, 32, 64, red, blue, true},
		{"turned 90° clockwise", 6, 32, 64, red, blue, true},
		{"transversed", 7, 32, 64, blue, red, true},
		{"turned 90° counter-clockwise", 8, 32, 64, blue, red, true},
		{"an orientation that does not exist", 99, 64, 32, red, blue, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := vision.Prepare(visiontest.OrientedJPEG(64, 32, tc.orientation))
			if err != nil {
				t.Fatal(err)
			}
			if img.Width != tc.w || img.Height != tc.h {
				t.Fatalf("sent %d×%d, want %d×%d", img.Width, img.Height, tc.w, tc.h)
			}
			out := sent(t, img)
			first, second := out.At(2, tc.h/2), out.At(tc.w-3, tc.h/2)
			if tc.vertical {
				first, second = out.At(tc.w/2, 2), out.At(tc.w/2, tc.h-3)
			}
			if !near(first, tc.topLeft) || !near(second, tc.bottomRight) {
				t.Errorf("halves are %v and %v, want %v and %v", first, second, tc.topLeft, tc.bottomRight)
			}
		})
	}
}

// near reports whether c is within JPEG's error of want.
func near(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, w uint8) bool { return int(a>>8)-int(w) < 40 && int(w)-int(a>>8) < 40 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}
