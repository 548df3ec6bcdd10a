//go:build unix

package wordpool

import (
	"archive/zip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"unsafe"

	"github.com/ikawaha/kagome-dict/dict"
)

// mapTables returns the dictionary with its large tables mapped from dir's
// tables file, building the file first when it is missing, damaged or made
// from another dictionary or format.
func mapTables(dir string) (*dict.Dict, error) {
	if !littleEndian() {
		return nil, errors.New("dictionary tables file: not on a big-endian machine")
	}
	zr, err := ipaZip()
	if err != nil {
		return nil, err
	}
	source := sourceID(zr)
	d, err := openTables(dir, source)
	if err == nil || (!errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errTables)) {
		return d, err
	}
	if err := buildTablesLean(dir, zr); err != nil {
		return nil, err
	}
	return openTables(dir, source)
}

// buildTablesLean builds the tables file with the collector running often
// (the part-of-speech table's decoding is garbage at once) and hands that
// garbage back to the OS.
func buildTablesLean(dir string, zr *zip.Reader) error {
	defer debug.FreeOSMemory()
	defer debug.SetGCPercent(debug.SetGCPercent(loadGCPercent))
	return buildTables(dir, zr)
}

// openTables maps dir's tables file, once checked, and makes the dictionary
// over it.
func openTables(dir string, source uint64) (*dict.Dict, error) {
	f, err := os.Open(filepath.Join(dir, tablesName))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, size, err := checkTables(f, source)
	if err != nil {
		return nil, err
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map dictionary tables: %w", err)
	}
	readOnDemand(f, data)
	d, err := tablesDict(data, h, func(n int, fill func([]dict.POS, int) error) ([]dict.POS, error) {
		return mappedHeaders(dir, n, fill)
	})
	if err != nil {
		_ = syscall.Munmap(data)
		return nil, err
	}
	return d, nil
}

// mappedHeaders returns the n slice headers of the part-of-speech vectors
// (24 bytes each, 9.4 MB for IPA), made by fill, in a file of this
// process's own, unlinked at once, in dir, mapped. They hold addresses of
// this process's mapping, so they cannot be kept for the next start; but
// written to the file rather than to memory, they are page cache, and of
// the mapping only the pages the tokenizer reads become resident.
func mappedHeaders(dir string, n int, fill func([]dict.POS, int) error) ([]dict.POS, error) {
	f, err := os.CreateTemp(dir, tablesName+".pos.*")
	if err != nil {
		return nil, fmt.Errorf("part-of-speech headers: %w", err)
	}
	defer f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return nil, fmt.Errorf("part-of-speech headers: %w", err)
	}
	hsize := int(unsafe.Sizeof(dict.POS(nil)))
	buf := make([]dict.POS, 2048)
	for from := 0; from < n; from += len(buf) {
		chunk := buf[:min(len(buf), n-from)]
		if err := fill(chunk, from); err != nil {
			return nil, err
		}
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(chunk))), len(chunk)*hsize)
		if _, err := f.WriteAt(b, int64(from*hsize)); err != nil {
			return nil, fmt.Errorf("part-of-speech headers: %w", err)
		}
	}
	// Written back now, the pages are clean, and readOnDemand can take
	// them out of the page cache.
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("part-of-speech headers: %w", err)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, n*hsize, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map part-of-speech headers: %w", err)
	}
	readOnDemand(f, data)
	return unsafe.Slice((*dict.POS)(unsafe.Pointer(unsafe.SliceData(data))), n), nil
}
