// Package visiontest makes image files for tests: real PNG, JPEG and GIF
// files of a given size, and a PNG header that claims a huge image without
// carrying its pixels (a decompression bomb).
package visiontest

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
)

//go:embed testdata/gradient-4000x3000.png
var largePNG []byte

// LargePNG is PNG(4000, 3000), made once and kept: making it takes
// seconds under the race detector.
func LargePNG() []byte { return largePNG }

// PNG is a w×h PNG of a colour gradient: red grows to the right, green
// downwards.
func PNG(w, h int) []byte {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, gradient(w, h)); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// JPEG is a w×h JPEG that compresses like a photograph: gradients with
// fine noise, at quality 90.
func JPEG(w, h int) []byte {
	img := gradient(w, h)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(img.Pix); i += 4 {
		n := uint8(r.IntN(24))
		img.Pix[i] += n
		img.Pix[i+1] += n / 2
		img.Pix[i+2] += n / 3
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// OrientedJPEG is a w×h JPEG whose left half is red and right half blue,
// carrying an EXIF orientation tag o (1–8), as phones write them.
func OrientedJPEG(w, h, o int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{R: 255, A: 255}
			if x >= w/2 {
				c = color.RGBA{B: 255, A: 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		panic(err)
	}
	// APP1 "Exif": a big-endian TIFF header and one IFD holding only
	// Orientation (tag 0x0112, SHORT), right after the SOI marker.
	var tiff bytes.Buffer
	tiff.WriteString("MM\x00\x2a")
	for _, v := range []any{uint32(8), uint16(1), uint16(0x0112), uint16(3), uint32(1), uint16(o), uint16(0), uint32(0)} {
		_ = binary.Write(&tiff, binary.BigEndian, v)
	}
	app1 := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	var out bytes.Buffer
	out.Write(b.Bytes()[:2])
	out.Write([]byte{0xff, 0xe1})
	_ = binary.Write(&out, binary.BigEndian, uint16(len(app1)+2))
	out.Write(app1)
	out.Write(b.Bytes()[2:])
	return out.Bytes()
}

// GIF is a w×h GIF of two frames: the first all c1, the second all c2.
func GIF(w, h int, c1, c2 color.Color) []byte {
	frame := func(c color.Color) *image.Paletted {
		p := image.NewPaletted(image.Rect(0, 0, w, h), palette.Plan9)
		idx := uint8(p.Palette.Index(c))
		for i := range p.Pix {
			p.Pix[i] = idx
		}
		return p
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &gif.GIF{Image: []*image.Paletted{frame(c1), frame(c2)}, Delay: []int{10, 10}}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// TransparentPNG is a w×h PNG whose every pixel is fully transparent.
func TransparentPNG(w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// BombPNG is a valid PNG signature and header claiming w×h pixels, with
// no pixel data at all: only a decoder that believes the header would
// allocate for it.
func BombPNG(w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk(&b, "IHDR", ihdr)
	chunk(&b, "IEND", nil)
	return b.Bytes()
}

func chunk(b *bytes.Buffer, typ string, data []byte) {
	_ = binary.Write(b, binary.BigEndian, uint32(len(data)))
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	b.WriteString(typ)
	b.Write(data)
	_ = binary.Write(b, binary.BigEndian, crc.Sum32())
}

// gradient is red growing to the right, green growing downwards.
func gradient(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	row := img.Pix[:w*4]
	for x := range w {
		row[x*4], row[x*4+2], row[x*4+3] = uint8(x*200/w), 60, 255
	}
	for y := 1; y < h; y++ {
		copy(img.Pix[y*img.Stride:], row)
	}
	for y := range h {
		g := uint8(y * 200 / h)
		line := img.Pix[y*img.Stride : y*img.Stride+w*4]
		for i := 1; i < len(line); i += 4 {
			line[i] = g
		}
	}
	return img
}
