package vision

import "image"

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
			row := src[y*sstride : y*sstride+sw*n]
			for dx := range dw {
				x0 := min(dx*k, sw-1)
				x1 := min(x0+k, sw)
				for c := range n {
					var s uint32
					for x := x0; x < x1; x++ {
						s += uint32(row[x*n+c])
					}
					acc[dx*n+c] += s
				}
			}
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
