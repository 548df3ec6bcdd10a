package wordpool

import (
	"fmt"
	"runtime/debug"
	"unsafe"

	"github.com/ikawaha/kagome-dict/dict"
	"github.com/ikawaha/kagome-dict/ipa"
)

// loadDict returns the shrunk IPA dictionary (parts of speech, no
// readings) with its large tables mapped from dir's tables file (see
// tables.go), or, when dir is "" or the file cannot be built or used, held
// in memory (loadDictInMemory); the error then says why.
func loadDict(dir string) (*dict.Dict, error) {
	if dir == "" {
		return loadDictInMemory(), nil
	}
	// Start-up's pages leave the resident set before the load, the load's
	// after it.
	dropBinaryPages(false)
	defer dropBinaryPages(true)
	d, err := mapTables(dir)
	if err != nil {
		return loadDictInMemory(), fmt.Errorf("dictionary tables kept in memory: %w", err)
	}
	return d, nil
}

// loadDictInMemory loads the shrunk IPA dictionary and moves its large tables —
// about 27 MB of the 29 MB it takes once loaded — out of the Go heap.
//
// They never change and hold no pointer into the heap, yet on the heap the
// collector would count them as live data and, with the default GOGC, let
// the heap grow by as much again before collecting: twice their size in
// resident memory. Outside it they cost their size once, and the collector
// no longer scans the 392,000 part-of-speech slices. The load's own garbage
// (the 12 MB compressed copy, gob's buffers, the heap tables just copied)
// is handed back to the OS at once, as nothing else would reuse it soon.
//
// ipa.DictShrink keeps the dictionary it returns for the process; only
// this package uses it, and the tables are replaced before first use.
//
// The load is what sets the process's peak memory: decoding makes about as
// much garbage as it keeps. The collector runs often meanwhile (GOGC 10
// instead of 100), and each table leaves the heap, and its heap copy goes
// back to the OS, before the next is copied, so the heap copies and the
// copies outside it are never all resident at once (a peak of 98 MB
// instead of 151 MB). Last, the binary's pages the compressed copy was
// read from leave the resident set too (dropBinaryPages): 20 MB.
func loadDictInMemory() *dict.Dict {
	defer debug.SetGCPercent(debug.SetGCPercent(loadGCPercent))
	d := ipa.DictShrink()
	debug.FreeOSMemory() // the compressed copy and the decoder's buffers
	d.Morphs = offHeap(d.Morphs)
	debug.FreeOSMemory()
	d.Connection.Vec = offHeap(d.Connection.Vec)
	debug.FreeOSMemory()
	d.Index.Da = offHeap(d.Index.Da)
	debug.FreeOSMemory()
	d.POSTable.POSs = sharedPOS(d.POSTable.POSs)
	debug.FreeOSMemory()
	dropBinaryPages(true)
	return d
}

// loadGCPercent is GOGC while the dictionary loads.
const loadGCPercent = 10

// sharedPOS returns poss with each distinct part-of-speech vector stored
// once (IPA has a few hundred for its 392,000 entries), vectors and the
// slice of them both off the heap.
func sharedPOS(poss []dict.POS) []dict.POS {
	at := map[string]int{} // vector -> its offset in flat
	var flat []dict.POSID
	for _, p := range poss {
		k := posKey(p)
		if _, ok := at[k]; !ok {
			at[k] = len(flat)
			flat = append(flat, p...)
		}
	}
	flat = offHeap(flat)
	out := make([]dict.POS, len(poss))
	for i, p := range poss {
		o := at[posKey(p)]
		out[i] = flat[o : o+len(p) : o+len(p)]
	}
	// out points only into memory outside the heap, so it may leave it too.
	return offHeap(out)
}

func posKey(p dict.POS) string {
	if len(p) == 0 {
		return ""
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), len(p)*int(unsafe.Sizeof(p[0]))))
}
