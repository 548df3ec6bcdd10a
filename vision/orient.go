package vision

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/draw"

	"github.com/rwcarlsen/goexif/exif"
)

// orientation is the EXIF orientation of a JPEG file (1–8), 1 when it has
// none or it cannot be read. Phones store a picture as the sensor saw it
// and say in this tag how it is to be turned for viewing.
func orientation(data []byte) (o int) {
	// The EXIF reader parses what a stranger sent; a file that trips it
	// is shown as stored.
	defer func() {
		if recover() != nil {
			o = 1
		}
	}()
	seg := exifSegment(data)
	if seg == nil {
		return 1
	}
	x, err := exif.Decode(bytes.NewReader(seg))
	if err != nil {
		return 1
	}
	tag, err := x.Get(exif.Orientation)
	if err != nil {
		return 1
	}
	v, err := tag.Int(0)
	if err != nil || v < 1 || v > 8 {
		return 1
	}
	return v
}

// exifSegment is the EXIF block ("Exif\0\0" and its TIFF data) of a JPEG
// file's APP1 segment, nil when the segments before the image data hold
// none. Finding it here keeps the EXIF reader from scanning a whole file
// that has no EXIF.
func exifSegment(data []byte) []byte {
	if len(data) < 4 || data[0] != 0xff || data[1] != 0xd8 {
		return nil
	}
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xff {
			return nil
		}
		marker := data[i+1]
		if marker == 0xff { // fill byte
			i++
			continue
		}
		if marker == 0xda || marker == 0xd9 { // the image data, or its end
			return nil
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 || i+2+n > len(data) {
			return nil
		}
		seg := data[i+4 : i+2+n]
		if marker == 0xe1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return seg
		}
		i += 2 + n
	}
	return nil
}

// orient turns src as EXIF orientation o says, so the model sees what a
// person viewing the photo sees. src is the scaled image, so this costs
// at most one copy of 1,024×1,024 pixels.
func orient(src image.Image, o int) image.Image {
	if o <= 1 {
		return src
	}
	b := src.Bounds()
	rgba, ok := src.(*image.RGBA)
	if !ok || b.Min != (image.Point{}) {
		rgba = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Rect, src, b.Min, draw.Src)
	}
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 { // 5–8 swap the sides
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range dh {
		row := dst.Pix[y*dst.Stride : y*dst.Stride+dw*4]
		for x := range dw {
			sx, sy := sourceOf(o, x, y, w, h)
			i := sy*rgba.Stride + sx*4
			copy(row[x*4:x*4+4], rgba.Pix[i:i+4])
		}
	}
	return dst
}

// sourceOf is the pixel of a w×h source that lands on (x, y) of the image
// turned by EXIF orientation o.
func sourceOf(o, x, y, w, h int) (int, int) {
	switch o {
	case 2: // mirrored
		return w - 1 - x, y
	case 3: // turned 180°
		return w - 1 - x, h - 1 - y
	case 4: // upside down, mirrored
		return x, h - 1 - y
	case 5: // transposed
		return y, x
	case 6: // to be turned 90° clockwise
		return y, h - 1 - x
	case 7: // transversed
		return w - 1 - y, h - 1 - x
	case 8: // to be turned 90° counter-clockwise
		return w - 1 - y, x
	}
	return x, y
}
