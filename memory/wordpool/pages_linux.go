package wordpool

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dropBinaryPages takes the read-only pages of yorozu's own executable out
// of the process's resident set. Loading the dictionary reads its
// compressed copy (12 MB embedded in the binary) once; those pages are
// never read again, but would stay resident, counted against the process,
// for good. Which pages they are is not known here, so every clean page
// of the binary goes: the pages still in use come back at once from the
// page cache (a minor fault each, no disk read), the others stay out.
// Only mappings without write permission are touched: dropping a private
// writable page would lose its contents. Failures change nothing.
func dropBinaryPages() {
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
	}
}
