//go:build !unix

package wordpool

import (
	"errors"

	"github.com/ikawaha/kagome-dict/dict"
)

// mapTables says that tables are mapped from a file only where mmap is.
func mapTables(string) (*dict.Dict, error) {
	return nil, errors.New("dictionary tables file: needs mmap")
}
