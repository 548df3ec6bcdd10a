package db

import "testing"

// SetSearchSizes sets, for t, the sizes by which SearchChannelLog chooses
// how to look (see searchSizes).
func SetSearchSizes(t testing.TB, few, dense, walk int) {
	old := searchSizes
	searchSizes.few, searchSizes.dense, searchSizes.walk = few, dense, walk
	t.Cleanup(func() { searchSizes = old })
}
