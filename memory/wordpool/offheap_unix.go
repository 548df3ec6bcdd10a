//go:build unix

package wordpool

import (
	"syscall"
	"unsafe"
)

// offHeap returns a copy of s in anonymous memory mapped for the process's
// lifetime, which the garbage collector neither counts nor scans; s itself
// when the mapping fails (the copy is a saving, not a need). T must hold no
// pointer into the Go heap: nothing there would keep its target alive.
func offHeap[T any](s []T) []T {
	if len(s) == 0 {
		return s
	}
	size := len(s) * int(unsafe.Sizeof(s[0]))
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return s
	}
	out := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(s))
	copy(out, s)
	return out
}
