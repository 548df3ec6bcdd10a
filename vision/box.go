package vision

import (
	"image"
	"strconv"
)

// boxShrink reduces src by the whole factor k, each output pixel the mean
// of a k×k block. Types it has no fast path for are returned as they are.
func boxShrink(src image.Image, k int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := (w+k-1)/k, (h+k-1)/k
	r := image.Rect(0, 0, dw, dh)
	switch s := src.(type) {
	case *image.YCbCr:
		d := image.NewYCbCr(r, s.SubsampleRatio)
		sy := s.SubImage(b).(*image.YCbCr)
		boxPlane(d.Y, d.YStride, dw, dh, 1, sy.Y, sy.YStride, w, h, k)
		cw, ch := chromaSize(s.SubsampleRatio, w, h)
		dcw, dch := chromaSize(s.SubsampleRatio, dw, dh)
		boxPlane(d.Cb, d.CStride, dcw, dch, 1, sy.Cb, sy.CStride, cw, ch, k)
		boxPlane(d.Cr, d.CStride, dcw, dch, 1, sy.Cr, sy.CStride, cw, ch, k)
		return d
	case *image.RGBA:
		d := image.NewRGBA(r)
		boxPlane(d.Pix, d.Stride, dw, dh, 4, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, k)
		return d
	case *image.NRGBA:
		d := image.NewNRGBA(r)
		boxPlane(d.Pix, d.Stride, dw, dh, 4, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, k)
		return d
	case *image.Gray:
		d := image.NewGray(r)
		boxPlane(d.Pix, d.Stride, dw, dh, 1, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, k)
		return d
	}
	return src
}

// boxPlane writes into dst (dw×dh pixels of n interleaved bytes) the means
// of the k×k blocks of src (sw×sh pixels); blocks at the right and bottom
// edges may be smaller.
func boxPlane(dst []byte, dstride, dw, dh, n int, src []byte, sstride, sw, sh, k int) {
	acc := make([]uint32, dw*n)
	for dy := range dh {
		clear(acc)
		y0 := min(dy*k, sh-1)
		y1 := min(y0+k, sh)
		for y := y0; y < y1; y++ {
			addRow(acc, src[y*sstride:y*sstride+sw*n], dw, n, sw, k)
		}
		out := dst[dy*dstride : dy*dstride+dw*n]
		for dx := range dw {
			x0 := min(dx*k, sw-1)
			cnt := uint32((min(x0+k, sw) - x0) * (y1 - y0))
			for c := range n {
				out[dx*n+c] = uint8((acc[dx*n+c] + cnt/2) / cnt)
			}
		}
	}
}

// addRow adds each k-pixel run of row to its sums in acc. A pixel is one
// byte (luma, chroma, grey) or four (RGBA); each has its own loop, since
// this is where the time of scaling goes.
func addRow(acc []uint32, row []byte, dw, n, sw, k int) {
	switch n {
	case 1:
		for dx := range dw {
			x0 := min(dx*k, sw-1)
			var s uint32
			for _, v := range row[x0:min(x0+k, sw)] {
				s += uint32(v)
			}
			acc[dx] += s
		}
	case 4:
		for dx := range dw {
			x0 := min(dx*k, sw-1)
			px := row[x0*4 : min(x0+k, sw)*4]
			var r, g, b, a uint32
			for len(px) >= 4 {
				r, g, b, a = r+uint32(px[0]), g+uint32(px[1]), b+uint32(px[2]), a+uint32(px[3])
				px = px[4:]
			}
			sums := acc[dx*4 : dx*4+4 : dx*4+4]
			sums[0], sums[1], sums[2], sums[3] = sums[0]+r, sums[1]+g, sums[2]+b, sums[3]+a
		}
	default:
		panic("vision: box filter of " + strconv.Itoa(n) + " bytes a pixel")
	}
}

// chromaSize is the size of the chroma planes of a w×h YCbCr image.
func chromaSize(r image.YCbCrSubsampleRatio, w, h int) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return (w + 1) / 2, h
	case image.YCbCrSubsampleRatio420:
		return (w + 1) / 2, (h + 1) / 2
	case image.YCbCrSubsampleRatio440:
		return w, (h + 1) / 2
	case image.YCbCrSubsampleRatio411:
		return (w + 3) / 4, h
	case image.YCbCrSubsampleRatio410:
		return (w + 3) / 4, (h + 1) / 2
	}
	return w, h
}
