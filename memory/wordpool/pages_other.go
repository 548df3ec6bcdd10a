//go:build !linux

package wordpool

// dropBinaryPages does nothing where /proc/self/maps is not there.
func dropBinaryPages() {}
