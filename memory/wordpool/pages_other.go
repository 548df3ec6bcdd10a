//go:build !linux

package wordpool

import "os"

// dropBinaryPages does nothing where /proc/self/maps is not there.
func dropBinaryPages(bool) {}

// readOnDemand does nothing where posix_fadvise is not known to be there.
func readOnDemand(*os.File, []byte) {}
