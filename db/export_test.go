package db

import "testing"

// SetSearchSizes sets, for t, the sizes by which SearchChannelLog chooses
// how to look (see searchSizes); walk 0 reads no rows back first.
func SetSearchSizes(t testing.TB, few, walk int) {
	old := searchSizes
	searchSizes.few, searchSizes.walk = few, walk
	t.Cleanup(func() { searchSizes = old })
}
