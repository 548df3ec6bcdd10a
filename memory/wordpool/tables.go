package wordpool

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"github.com/ikawaha/kagome-dict/dict"
	"github.com/ikawaha/kagome-dict/dict/trie"
)

// The tables file holds the dictionary's tables as the tokenizer reads
// them, so that they can be mapped from the file instead of decoded onto
// the heap: built once from the embedded ipa.dict, then mapped at every
// start. Mapped read-only, its pages are the page cache's: only those the
// tokenizer touches count in the process's resident set, the kernel may
// drop them under pressure (they come back from the file), and processes
// sharing DATA_DIR share them.
//
// Layout: a fixed header (tablesHeader, little-endian), then the sections,
// each at an offset that is a multiple of 8. The header names the format,
// the source dictionary (a hash of ipa.dict's entries and their CRCs) and
// the CRC-32C of everything after it; a file that does not match in every
// point is not used and is built again.
const (
	tablesName   = "kagome-ipa.tables"
	tablesFormat = 1
	tablesMagic  = "yzkagome"
)

// The sections of the tables file.
const (
	secMorphs      = iota // []dict.Morph, as morph.dict stores them
	secConnection         // []int16, Row×Col, as connection.dict stores it
	secDA                 // trie.DoubleArray, as index.dict stores it
	secDup                // int32 pairs: the index's duplicate counts
	secPOSIndex           // []uint16: each morph's part-of-speech vector
	secPOSVectors         // []uint32 pairs: each vector's offset and length in secPOSFlat
	secPOSFlat            // []dict.POSID: the distinct vectors, one after another
	secPOSNames           // part-of-speech names, each ended by a NUL
	secContentMeta        // content.meta as ipa.dict has it
	secCharDef            // chardef.dict as ipa.dict has it
	secUnk                // unk.dict as ipa.dict has it
	secInfo               // dict.info as ipa.dict has it
	numSections
)

type tablesSection struct{ Off, Len uint64 }

type tablesHeader struct {
	Magic    [8]byte
	Format   uint32
	Sum      uint32 // CRC-32C of the file after the header
	Source   uint64 // sourceID of the dictionary the tables came from
	Row, Col int64  // the connection matrix's dimensions
	Sections [numSections]tablesSection
}

var (
	headerSize = int64(binary.Size(tablesHeader{}))
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
)

// errTables says a tables file is not one this build can use.
var errTables = errors.New("dictionary tables file")

// sourceID identifies the dictionary in zr and the file format: a new
// kagome-dict or a new format makes the file built again.
func sourceID(zr *zip.Reader) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "format %d\n", tablesFormat)
	for _, f := range zr.File {
		fmt.Fprintf(h, "%s %08x %d\n", f.Name, f.CRC32, f.UncompressedSize64)
	}
	return h.Sum64()
}

// buildTables writes the tables of the dictionary in zr to dir's tables
// file, through a temporary file renamed into place, so that a reader
// never sees half a file and a process mapping the old one keeps it.
// Only the part-of-speech table is decoded on the heap (about 15 MB for a
// moment); the others are streamed through.
func buildTables(dir string, zr *zip.Reader) (err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("build dictionary tables: %w", err)
	}
	removeStale(dir, time.Now())
	tmp, err := os.CreateTemp(dir, tablesName+".*")
	if err != nil {
		return fmt.Errorf("build dictionary tables: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	w := &tablesWriter{w: bufio.NewWriterSize(tmp, 64<<10), sum: crc32.New(castagnoli), off: headerSize}
	if _, err := tmp.Seek(headerSize, io.SeekStart); err != nil {
		return fmt.Errorf("build dictionary tables: %w", err)
	}
	h := tablesHeader{Format: tablesFormat, Source: sourceID(zr)}
	copy(h.Magic[:], tablesMagic)
	if err := writeSections(w, &h, zr); err != nil {
		return fmt.Errorf("build dictionary tables: %w", err)
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("build dictionary tables: %w", err)
	}
	h.Sum = w.sum.Sum32()
	var hb bytes.Buffer
	_ = binary.Write(&hb, binary.LittleEndian, h)
	if _, err := tmp.WriteAt(hb.Bytes(), 0); err != nil {
		return fmt.Errorf("build dictionary tables: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("build dictionary tables: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("build dictionary tables: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, tablesName)); err != nil {
		return fmt.Errorf("build dictionary tables: %w", err)
	}
	return nil
}

// staleAfter is how old a temporary file of a build must be to be taken
// for one a process left when it stopped: a build takes a second or two,
// and another process's may be under way.
const staleAfter = 10 * time.Minute

// removeStale removes the temporary files in dir that builds which never
// finished left there.
func removeStale(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tablesName+".") {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) > staleAfter {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// tablesWriter writes sections, keeping their offsets and the file's sum.
type tablesWriter struct {
	w   *bufio.Writer
	sum hash.Hash32
	off int64
}

func (t *tablesWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.sum.Write(p[:n])
	t.off += int64(n)
	return n, err
}

// section writes section i with fill, after padding to a multiple of 8.
func (t *tablesWriter) section(h *tablesHeader, i int, fill func(io.Writer) error) error {
	if pad := (8 - t.off%8) % 8; pad > 0 {
		if _, err := t.Write(make([]byte, pad)); err != nil {
			return err
		}
	}
	start := t.off
	if err := fill(t); err != nil {
		return err
	}
	h.Sections[i] = tablesSection{Off: uint64(start), Len: uint64(t.off - start)}
	return nil
}

// maxTableLen bounds a table's length read from ipa.dict (IPA's largest,
// the double array, has 1.4 million entries).
const maxTableLen = 1 << 26

func writeSections(t *tablesWriter, h *tablesHeader, zr *zip.Reader) error {
	var morphs int64
	err := readEntry(zr, dict.MorphDictFileName, func(r io.Reader) error {
		if err := binary.Read(r, binary.LittleEndian, &morphs); err != nil {
			return err
		}
		if morphs <= 0 || morphs > maxTableLen {
			return fmt.Errorf("%d morphs", morphs)
		}
		return t.section(h, secMorphs, copyN(r, morphs*int64(unsafe.Sizeof(dict.Morph{}))))
	})
	if err != nil {
		return err
	}
	err = readEntry(zr, dict.ConnectionDictFileName, func(r io.Reader) error {
		if err := binary.Read(r, binary.LittleEndian, &h.Row); err != nil {
			return err
		}
		if err := binary.Read(r, binary.LittleEndian, &h.Col); err != nil {
			return err
		}
		if h.Row <= 0 || h.Col <= 0 || h.Row*h.Col > maxTableLen {
			return fmt.Errorf("connection matrix %d×%d", h.Row, h.Col)
		}
		return t.section(h, secConnection, copyN(r, h.Row*h.Col*2))
	})
	if err != nil {
		return err
	}
	err = readEntry(zr, dict.IndexDictFileName, func(r io.Reader) error {
		var n int64
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return err
		}
		if n <= 0 || n > maxTableLen {
			return fmt.Errorf("double array of %d", n)
		}
		if err := t.section(h, secDA, copyN(r, n*8)); err != nil {
			return err
		}
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return err
		}
		if n < 0 || n > maxTableLen {
			return fmt.Errorf("%d duplicates", n)
		}
		return t.section(h, secDup, copyN(r, n*8))
	})
	if err != nil {
		return err
	}
	err = readEntry(zr, dict.POSDictFileName, func(r io.Reader) error {
		return writePOS(t, h, r, morphs)
	})
	if err != nil {
		return err
	}
	for _, s := range []struct {
		sec  int
		name string
	}{
		{secContentMeta, dict.ContentMetaFileName},
		{secCharDef, dict.CharDefDictFileName},
		{secUnk, dict.UnkDictFileName},
		{secInfo, dict.DictInfoFileName},
	} {
		err := readEntry(zr, s.name, func(r io.Reader) error {
			return t.section(h, s.sec, func(w io.Writer) error {
				_, err := io.Copy(w, io.LimitReader(r, maxTableLen))
				return err
			})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writePOS writes the part-of-speech sections: IPA's 392,000 vectors are
// a few hundred distinct ones, each stored once.
func writePOS(t *tablesWriter, h *tablesHeader, r io.Reader, morphs int64) error {
	table, err := dict.ReadPOSTable(r)
	if err != nil {
		return err
	}
	if int64(len(table.POSs)) != morphs {
		return fmt.Errorf("%d part-of-speech vectors for %d morphs", len(table.POSs), morphs)
	}
	number := map[string]uint16{}
	var vectors []uint32
	var flat []dict.POSID
	err = t.section(h, secPOSIndex, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		var b [2]byte
		for _, p := range table.POSs {
			k := posKey(p)
			n, ok := number[k]
			if !ok {
				if len(number) == 1<<16 {
					return errors.New("over 65,536 distinct part-of-speech vectors")
				}
				n = uint16(len(number))
				number[k] = n
				vectors = append(vectors, uint32(len(flat)), uint32(len(p)))
				flat = append(flat, p...)
			}
			binary.LittleEndian.PutUint16(b[:], n)
			if _, err := bw.Write(b[:]); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	table.POSs = nil // the largest part; the rest is small
	if err := t.section(h, secPOSVectors, func(w io.Writer) error {
		return binary.Write(w, binary.LittleEndian, vectors)
	}); err != nil {
		return err
	}
	if err := t.section(h, secPOSFlat, func(w io.Writer) error {
		return binary.Write(w, binary.LittleEndian, flat)
	}); err != nil {
		return err
	}
	return t.section(h, secPOSNames, func(w io.Writer) error {
		for _, name := range table.NameList {
			if strings.Contains(name, "\x00") {
				return fmt.Errorf("part-of-speech name %q", name)
			}
			if _, err := io.WriteString(w, name+"\x00"); err != nil {
				return err
			}
		}
		return nil
	})
}

func copyN(r io.Reader, n int64) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.CopyN(w, r, n)
		return err
	}
}

// readEntry opens ipa.dict's entry name and reads it with read.
func readEntry(zr *zip.Reader, name string, read func(io.Reader) error) error {
	f, err := zr.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := read(f); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// checkTables reads f's header and checks it and the file's sum against
// source. It reads the file with read(2), not through a mapping, so the
// check brings no page into the process's resident set.
func checkTables(f *os.File, source uint64) (tablesHeader, int64, error) {
	var h tablesHeader
	st, err := f.Stat()
	if err != nil {
		return h, 0, err
	}
	size := st.Size()
	if size < headerSize {
		return h, 0, fmt.Errorf("%w: %d bytes, shorter than its header", errTables, size)
	}
	if err := binary.Read(io.NewSectionReader(f, 0, headerSize), binary.LittleEndian, &h); err != nil {
		return h, 0, fmt.Errorf("%w: %w", errTables, err)
	}
	switch {
	case string(h.Magic[:]) != tablesMagic:
		return h, 0, fmt.Errorf("%w: not a tables file", errTables)
	case h.Format != tablesFormat:
		return h, 0, fmt.Errorf("%w: format %d, not %d", errTables, h.Format, tablesFormat)
	case h.Source != source:
		return h, 0, fmt.Errorf("%w: made from another dictionary", errTables)
	}
	for i, s := range h.Sections {
		if s.Off%8 != 0 || s.Off < uint64(headerSize) || s.Off > uint64(size) || s.Len > uint64(size)-s.Off {
			return h, 0, fmt.Errorf("%w: section %d out of the file", errTables, i)
		}
	}
	sum := crc32.New(castagnoli)
	if _, err := io.CopyBuffer(sum, io.NewSectionReader(f, headerSize, size-headerSize), make([]byte, 64<<10)); err != nil {
		return h, 0, fmt.Errorf("%w: %w", errTables, err)
	}
	if sum.Sum32() != h.Sum {
		return h, 0, fmt.Errorf("%w: damaged (checksum)", errTables)
	}
	return h, size, nil
}

// tablesDict makes a dictionary whose large tables are views of data, the
// tables file's contents (checked by checkTables); the small ones are
// decoded onto the heap. headers makes the part-of-speech vectors' slice
// headers, n of them, with fill.
func tablesDict(data []byte, h tablesHeader, headers func(n int, fill func([]dict.POS, int) error) ([]dict.POS, error)) (*dict.Dict, error) {
	sec := func(i int) []byte {
		s := h.Sections[i]
		return data[s.Off : s.Off+s.Len : s.Off+s.Len]
	}
	morphs := view[dict.Morph](sec(secMorphs))
	vec := view[int16](sec(secConnection))
	if int64(len(vec)) != h.Row*h.Col {
		return nil, fmt.Errorf("%w: connection matrix of %d for %d×%d", errTables, len(vec), h.Row, h.Col)
	}
	index := view[uint16](sec(secPOSIndex))
	vectors := view[uint32](sec(secPOSVectors))
	flat := view[dict.POSID](sec(secPOSFlat))
	if len(index) != len(morphs) {
		return nil, fmt.Errorf("%w: %d part-of-speech vectors for %d morphs", errTables, len(index), len(morphs))
	}
	for i := 0; i+1 < len(vectors); i += 2 {
		if uint64(vectors[i])+uint64(vectors[i+1]) > uint64(len(flat)) {
			return nil, fmt.Errorf("%w: part-of-speech vector %d out of its table", errTables, i/2)
		}
	}
	poss, err := headers(len(index), func(out []dict.POS, from int) error {
		for i := range out {
			v := int(index[from+i]) * 2
			if v+1 >= len(vectors) {
				return fmt.Errorf("%w: morph %d names no part-of-speech vector", errTables, from+i)
			}
			o, n := vectors[v], vectors[v+1]
			out[i] = flat[o : o+n : o+n]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	dupPairs := view[int32](sec(secDup))
	dup := make(map[int32]int32, len(dupPairs)/2)
	for i := 0; i+1 < len(dupPairs); i += 2 {
		dup[dupPairs[i]] = dupPairs[i+1]
	}
	var names []string
	for name := range strings.SplitSeq(string(sec(secPOSNames)), "\x00") {
		names = append(names, name)
	}
	if len(names) > 0 {
		names = names[:len(names)-1] // after the last NUL
	}
	meta, err := dict.ReadContentsMeta(bytes.NewReader(sec(secContentMeta)))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errTables, err)
	}
	chardef, err := dict.ReadCharDef(bytes.NewReader(sec(secCharDef)))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errTables, err)
	}
	unk, err := dict.ReadUnkDic(bytes.NewReader(sec(secUnk)))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errTables, err)
	}
	d := &dict.Dict{
		Morphs:       morphs,
		POSTable:     dict.POSTable{POSs: poss, NameList: names},
		ContentsMeta: meta,
		Connection:   dict.ConnectionTable{Row: h.Row, Col: h.Col, Vec: vec},
		Index:        dict.IndexTable{Da: trie.DoubleArray(view[struct{ Base, Check int32 }](sec(secDA))), Dup: dup},
		CharClass:    chardef.CharClass,
		CharCategory: chardef.CharCategory,
		InvokeList:   chardef.InvokeList,
		GroupList:    chardef.GroupList,
		UnkDict:      unk,
	}
	d.SetInfo(dict.ReadDictInfo(bytes.NewReader(sec(secInfo))))
	return d, nil
}

// view is b's bytes as a slice of T; b is 8-byte aligned (a section of a
// page-aligned mapping) and T holds no pointer.
func view[T any](b []byte) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if len(b) < size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
}

// littleEndian reports whether this machine stores numbers as the tables
// file does; elsewhere the tables stay on the heap.
func littleEndian() bool {
	return binary.NativeEndian.Uint16([]byte{1, 0}) == 1
}
