package vision

import (
	"testing"

	"github.com/yorozu-bot/yorozu/vision/visiontest"
)

func TestOrientationOfOddFiles(t *testing.T) {
	good := visiontest.OrientedJPEG(16, 8, 6)
	for _, tc := range []struct {
		name string
		data []byte
		want int
	}{
		{"a photo turned on its side", good, 6},
		{"a JPEG without EXIF", visiontest.JPEG(16, 8), 1},
		{"not a JPEG", visiontest.PNG(16, 8), 1},
		{"empty", nil, 1},
		{"cut inside the EXIF segment", good[:20], 1},
		{"a segment length under 2", []byte{0xff, 0xd8, 0xff, 0xe1, 0x00, 0x01, 0xff, 0xd9}, 1},
		{"garbage after the SOI", append([]byte{0xff, 0xd8}, make([]byte, 64)...), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := orientation(tc.data); got != tc.want {
				t.Errorf("orientation = %d, want %d", got, tc.want)
			}
		})
	}
}
