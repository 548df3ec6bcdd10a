//go:build !unix

package wordpool

// offHeap returns s: off-heap tables need mmap, so elsewhere they stay on
// the Go heap.
func offHeap[T any](s []T) []T { return s }
