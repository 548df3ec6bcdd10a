package jma

import (
	"slices"
	"strings"
)

// Intensities are JMA's seismic intensity scale (震度) as its lists write
// it, weakest first.
var Intensities = []string{"1", "2", "3", "4", "5-", "5+", "6-", "6+", "7"}

// ReadIntensity reads a seismic intensity as people write it — JMA's "5-"
// or the Japanese "5弱", full-width digits and a leading 震度 allowed — in
// JMA's notation; false when it is not on the scale.
func ReadIntensity(v string) (string, bool) {
	s := strings.TrimPrefix(strings.TrimSpace(v), "震度")
	s = strings.Map(func(r rune) rune {
		if r >= '０' && r <= '９' {
			return r - '０' + '0'
		}
		return r
	}, s)
	s = strings.NewReplacer("弱", "-", "強", "+", "＋", "+", "－", "-").Replace(s)
	return s, slices.Contains(Intensities, s)
}
