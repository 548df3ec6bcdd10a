package browse

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"
)

func TestReadDocument(t *testing.T) {
	sjis, err := japanese.ShiftJIS.NewEncoder().String("名前,値\nりんご,3\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, contentType, data string
		kind, want                    string
		err                           error
	}{
		{"csv in UTF-8", "data.csv", "text/csv; charset=utf-8", "名前,値\nみかん,5\n", "csv", "みかん,5", nil},
		{"csv in Shift_JIS", "data.csv", "text/csv; charset=Shift_JIS", sjis, "csv", "りんご,3", nil},
		{"markdown by extension", "notes.md", "application/octet-stream", "# 見出し\n本文", "md", "本文", nil},
		{"html main text", "page.html", "text/html", "<html><head><title>題</title></head><body><main><p>中身の文章です。</p></main></body></html>", "html", "中身の文章です。", nil},
		{"a zip is not a document", "a.zip", "application/zip", "PK\x03\x04", "", "", ErrNotDocument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kind, text, err := ReadDocument([]byte(tc.data), tc.file, tc.contentType)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || kind != tc.kind || !strings.Contains(text, tc.want) {
				t.Fatalf("= %q, %q, %v; want kind %q containing %q", kind, text, err, tc.kind, tc.want)
			}
		})
	}
	if _, _, err := ReadDocument([]byte("a\x00b"), "bin.txt", ""); err == nil {
		t.Error("a binary .txt was read")
	}
}
