package wordpool

import (
	"archive/zip"
	"embed"
	"errors"
	"fmt"
	"io"
	_ "unsafe" // go:linkname

	_ "github.com/ikawaha/kagome-dict/ipa" // ipaSource's package
)

// ipaSource is the IPA dictionary kagome-dict/ipa embeds: ipa.dict, a zip
// of its tables. The package hands it out only decoded whole, onto the Go
// heap, with a 12 MB copy of the compressed file beside it (ipa.DictShrink);
// reading the zip in place lets the tables be streamed into a file, one at
// a time, with no copy. The link is checked when yorozu is built: were the
// variable renamed, the build would fail, not the bot.
//
//go:linkname ipaSource github.com/ikawaha/kagome-dict/ipa.dictsrc
var ipaSource embed.FS

// ipaZip opens the embedded ipa.dict where it lies in the binary.
func ipaZip() (*zip.Reader, error) {
	f, err := ipaSource.Open("ipa.dict")
	if err != nil {
		return nil, fmt.Errorf("open ipa.dict: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat ipa.dict: %w", err)
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		return nil, errors.New("ipa.dict: embedded file without ReadAt")
	}
	zr, err := zip.NewReader(ra, st.Size())
	if err != nil {
		return nil, fmt.Errorf("read ipa.dict: %w", err)
	}
	return zr, nil
}
