package wordpool

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dropBinaryPages takes the read-only pages of yorozu's own executable out
// of the process's resident set, and out of the page cache where no other
// process maps them. Start-up and the dictionary's first load (its
// compressed copy, 12 MB embedded in the binary) read pages that are never
// read again, and the kernel reads ahead and maps 64 KB around each page
// faulted in; all of it would stay resident, counted against the process,
// for good. Which pages are still needed is not known here, so every clean
// page of the binary goes: those in use come back at the next use, read
// from the file. The read-only data (type descriptors, the function
// tables the collector reads stack maps from, embedded files) is read at
// random, a few bytes here and there: with random set, it is advised
// random and comes back page by page instead of 64 KB at a time (random is
// left unset while the compressed dictionary, read in order, is still to
// be read). Code keeps the kernel's read-ahead. Only mappings without
// write permission are touched: dropping a private writable page would
// lose its contents. Failures change nothing.
func dropBinaryPages(random bool) {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 00400000-00c5e000 r-xp 00000000 08:01 1234  /path/to/yorozu
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || strings.Contains(fields[1], "w") {
			continue
		}
		from, to, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(from, 16, 64)
		end, err2 := strconv.ParseUint(to, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		// The range is a mapping's, not Go memory: madvise takes it as
		// numbers.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
		if random && !strings.Contains(fields[1], "x") {
			_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_RANDOM)
		}
	}
	if bin, err := os.Open(exe); err == nil {
		_ = unix.Fadvise(int(bin.Fd()), 0, 0, unix.FADV_DONTNEED)
		_ = bin.Close()
	}
}

// readOnDemand makes the pages of a mapping of f that the process reads
// the only ones it holds. The kernel maps a faulting page's neighbours too
// (64 KB around it) when they are in the page cache, and reads ahead
// around a fault that misses it: for tables read at random, most of a
// file would soon count in the resident set for a few pages used. So f's
// clean pages leave the page cache (pages other processes map stay), and
// mapping, advised random, reads one page per fault.
func readOnDemand(f *os.File, mapping []byte) {
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	_ = unix.Madvise(mapping, unix.MADV_RANDOM)
}
