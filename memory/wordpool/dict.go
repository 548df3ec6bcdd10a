package wordpool

import (
	"runtime/debug"
	"unsafe"

	"github.com/ikawaha/kagome-dict/dict"
	"github.com/ikawaha/kagome-dict/ipa"
)

// loadDict loads the shrunk IPA dictionary and moves its large tables —
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
func loadDict() *dict.Dict {
	d := ipa.DictShrink()
	d.Morphs = offHeap(d.Morphs)
	d.Connection.Vec = offHeap(d.Connection.Vec)
	d.Index.Da = offHeap(d.Index.Da)
	d.POSTable.POSs = sharedPOS(d.POSTable.POSs)
	debug.FreeOSMemory()
	return d
}

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
