package vision

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"mime"
	"path"
	"strings"

	// Formats image.Decode understands; the GIF decoder gives the first frame.
	_ "image/gif"
	_ "image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// Limits of what a turn may carry and what the model gets.
const (
	// MaxImages is how many images one turn sends to the model; more are
	// left out with a note.
	MaxImages = 4
	// MaxBytes is the largest image file read (10 MB).
	MaxBytes = 10 << 20
	// MaxPixels is the most pixels an image may have (16 M, e.g.
	// 4096×4096); more is refused from the header, before decoding.
	MaxPixels = 16 << 20
	// MaxSide is the longest side of an image as the model sees it.
	MaxSide = 1024
	// Quality is the JPEG quality images are re-encoded with.
	Quality = 85
)

// Why an image was refused; errors from Read and Prepare match one of them.
var (
	ErrTooLarge      = errors.New("image file too large")
	ErrTooManyPixels = errors.New("image has too many pixels")
	ErrFormat        = errors.New("not a PNG, JPEG, WebP or GIF image")
	ErrBroken        = errors.New("image cannot be decoded")
	// ErrNotAllowed is for an adapter that refuses to download from where
	// a file is (Discord's attachment hosts only).
	ErrNotAllowed = errors.New("image URL not allowed")
)

// Image is a picture ready for the model.
type Image struct {
	JPEG          []byte // the re-encoded image, sent to the model
	Width, Height int    // as sent
	// SourceWidth and SourceHeight are the size of the file received.
	SourceWidth, SourceHeight int
	Format                    string // of the file received: "png", "jpeg", "webp" or "gif"
}

// Prepare checks, decodes, scales and re-encodes one image file. The
// header's dimensions are checked before decoding, so a file that claims
// more than MaxPixels costs nothing. A file refused after its header was
// read still comes with SourceWidth, SourceHeight and Format.
func Prepare(data []byte) (Image, error) {
	if len(data) > MaxBytes {
		return Image{}, fmt.Errorf("%w: %d bytes", ErrTooLarge, len(data))
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	switch {
	case errors.Is(err, image.ErrFormat):
		return Image{}, ErrFormat
	case err != nil:
		return Image{}, fmt.Errorf("%w: %v", ErrBroken, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Image{}, fmt.Errorf("%w: %d×%d", ErrBroken, cfg.Width, cfg.Height)
	}
	// From here on a refusal still tells what the file claimed to be.
	img := Image{SourceWidth: cfg.Width, SourceHeight: cfg.Height, Format: format}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return img, fmt.Errorf("%w: %d×%d", ErrTooManyPixels, cfg.Width, cfg.Height)
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return img, fmt.Errorf("%w: %v", ErrBroken, err)
	}
	out := fit(src)
	if format == "jpeg" {
		out = orient(out, orientation(data))
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: Quality}); err != nil {
		return img, fmt.Errorf("encode image: %w", err)
	}
	b := out.Bounds()
	img.JPEG, img.Width, img.Height = buf.Bytes(), b.Dx(), b.Dy()
	return img, nil
}

// Size returns the size an image of w×h is sent at: the longest side at
// most MaxSide, the aspect ratio kept.
func Size(w, h int) (int, int) {
	long := max(w, h)
	if long <= MaxSide {
		return w, h
	}
	sw := max(1, (w*MaxSide+long/2)/long)
	sh := max(1, (h*MaxSide+long/2)/long)
	return sw, sh
}

// fit scales src to Size and flattens transparency onto white (JPEG has
// no alpha). Large reductions are first box-filtered by a whole factor,
// which averages every source pixel (no aliasing) and is cheap; the
// bilinear step that follows then reduces by less than two.
func fit(src image.Image) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := Size(w, h)
	_, ycc := src.(*image.YCbCr)
	_, gray := src.(*image.Gray)
	opaque := ycc || gray
	if dw == w && dh == h && opaque {
		return src
	}
	if k := max(w, h) / MaxSide; k >= 2 {
		src = boxShrink(src, k)
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	op := draw.Src
	if !opaque {
		draw.Draw(dst, dst.Rect, image.NewUniform(color.White), image.Point{}, draw.Src)
		op = draw.Over
	}
	draw.ApproxBiLinear.Scale(dst, dst.Rect, src, src.Bounds(), op, nil)
	return dst
}

// formats are the image types a file may claim to be, by MIME type.
var formats = map[string]bool{"image/png": true, "image/jpeg": true, "image/webp": true, "image/gif": true}

// IsImage reports whether a file, by its content type (preferred) or its
// name, is meant as a picture of any kind, readable here or not.
func IsImage(contentType, name string) bool {
	return strings.HasPrefix(mediaType(contentType, name), "image/")
}

// Supported reports whether a file, by its content type or name, claims
// to be one of the formats Prepare reads.
func Supported(contentType, name string) bool {
	return formats[mediaType(contentType, name)]
}

func mediaType(contentType, name string) string {
	if contentType == "" {
		contentType = mime.TypeByExtension(strings.ToLower(path.Ext(name)))
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	if mt == "image/jpg" || mt == "image/pjpeg" {
		mt = "image/jpeg"
	}
	return mt
}
