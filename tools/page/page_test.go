package page

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	testSecret = []byte("0123456789abcdef0123456789abcdef")
	epoch      = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

type scrapePayload struct {
	URL    string `json:"url"`
	Offset int    `json:"offset"`
}

func TestTokenRoundTrip(t *testing.T) {
	s := NewSigner(testSecret, func() time.Time { return epoch })
	in := scrapePayload{URL: "https://例え.jp/ページ?q=<&>", Offset: 4000}
	tok, err := s.Sign("scrape_url", in)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(tok, ".")
	js, _ := base64.RawURLEncoding.DecodeString(head)
	for _, c := range js {
		if c >= 0x80 {
			t.Fatalf("token JSON is not ASCII: %s", js)
		}
	}
	if !strings.HasPrefix(string(js), `{"v":1,"tool":"scrape_url","exp":`) {
		t.Errorf("token JSON = %s", js)
	}
	var out scrapePayload
	if err := s.Verify("scrape_url", tok, &out); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if out != in {
		t.Errorf("payload = %+v, want %+v", out, in)
	}
}

func TestTokenRejected(t *testing.T) {
	now := epoch
	s := NewSigner(testSecret, func() time.Time { return now })
	tok, err := s.Sign("scrape_url", scrapePayload{URL: "https://example.com/", Offset: 10})
	if err != nil {
		t.Fatal(err)
	}
	head, sig, _ := strings.Cut(tok, ".")
	js, _ := base64.RawURLEncoding.DecodeString(head)
	altered := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(js), `"offset":10`, `"offset":99`, 1))) + "." + sig
	other := NewSigner([]byte("another secret"), func() time.Time { return now })
	forged, _ := other.Sign("scrape_url", scrapePayload{URL: "http://169.254.169.254/"})
	flip := []byte(tok)
	flip[len(flip)/3] ^= 1

	for _, tc := range []struct {
		name, tool, token, reason string
		later                     time.Duration
	}{
		{"forged", "scrape_url", forged, "signature mismatch", 0},
		{"altered payload", "scrape_url", altered, "signature mismatch", 0},
		{"flipped bit", "scrape_url", string(flip), "", 0},
		{"truncated", "scrape_url", tok[:len(tok)-5], "malformed signature", 0},
		{"signature missing", "scrape_url", head, "malformed token", 0},
		{"garbage", "scrape_url", "hello world", "malformed token", 0},
		{"empty", "scrape_url", "", "malformed token", 0},
		{"padded", "scrape_url", tok + "=", "malformed token", 0},
		{"other tool", "pdf_to_text", tok, "token was issued for another tool", 0},
		{"expired", "scrape_url", tok, "token expired", TTL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now = epoch.Add(tc.later)
			defer func() { now = epoch }()
			err := s.Verify(tc.tool, tc.token, &scrapePayload{})
			var te *TokenError
			if !errors.As(err, &te) {
				t.Fatalf("Verify = %v, want *TokenError", err)
			}
			if tc.reason != "" && te.Reason != tc.reason {
				t.Errorf("reason = %q, want %q", te.Reason, tc.reason)
			}
			if !strings.HasPrefix(te.Message(), "Invalid continuation token: ") {
				t.Errorf("message = %q", te.Message())
			}
		})
	}
	now = epoch.Add(TTL - time.Second)
	if err := s.Verify("scrape_url", tok, nil); err != nil {
		t.Errorf("token refused before expiry: %v", err)
	}
}

func TestSignRefusesReservedKeys(t *testing.T) {
	s := NewSigner(testSecret, nil)
	if _, err := s.Sign("x", map[string]any{"tool": "y"}); err == nil {
		t.Error("Sign accepted a payload overriding tool")
	}
	if _, err := s.Sign("x", []int{1}); err == nil {
		t.Error("Sign accepted a non-object payload")
	}
}

func TestEmptySecretIsRandom(t *testing.T) {
	a, b := NewSigner(nil, nil), NewSigner(nil, nil)
	tok, _ := a.Sign("t", struct{}{})
	if err := b.Verify("t", tok, nil); err == nil {
		t.Error("two random signers share a key")
	}
	if err := a.Verify("t", tok, nil); err != nil {
		t.Errorf("Verify own token: %v", err)
	}
}

// FuzzVerify feeds arbitrary tokens to Verify: it must never panic, fail only
// with *TokenError, and accept only the exact bytes it signed.
func FuzzVerify(f *testing.F) {
	s := NewSigner(testSecret, func() time.Time { return epoch })
	for _, p := range []any{
		scrapePayload{URL: "https://example.com/", Offset: 4000},
		map[string]any{"cands": []map[string]string{{"t": "資料", "u": "https://e.jp/a.pdf"}}, "i": 0, "p": 25},
		struct{}{},
	} {
		tok, err := s.Sign("scrape_url", p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tok)
	}
	f.Fuzz(func(t *testing.T, token string) {
		var out map[string]any
		err := s.Verify("scrape_url", token, &out)
		if err != nil {
			var te *TokenError
			if !errors.As(err, &te) {
				t.Fatalf("Verify error %T %v is not a *TokenError", err, err)
			}
			return
		}
		head, _, _ := strings.Cut(token, ".")
		js, _ := base64.RawURLEncoding.DecodeString(head)
		if base64.RawURLEncoding.EncodeToString(js) != head {
			t.Fatalf("accepted a non-canonical encoding %q", token)
		}
	})
}

// TestWriteFuzzSeeds regenerates testdata/fuzz/FuzzVerify when
// YOROZU_WRITE_SEEDS is set; the checked-in seeds need no clock change
// because the fuzz target pins now to epoch.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("YOROZU_WRITE_SEEDS") == "" {
		t.Skip("set YOROZU_WRITE_SEEDS=1 to regenerate")
	}
	s := NewSigner(testSecret, func() time.Time { return epoch })
	dir := filepath.Join("testdata", "fuzz", "FuzzVerify")
	os.MkdirAll(dir, 0o755)
	valid, _ := s.Sign("scrape_url", scrapePayload{URL: "https://example.com/", Offset: 8000})
	other, _ := s.Sign("pdf_to_text", map[string]int{"page": 25})
	head, sig, _ := strings.Cut(valid, ".")
	for name, tok := range map[string]string{
		"valid": valid, "other_tool": other, "truncated": valid[:len(valid)/2],
		"no_sig": head, "swapped": sig + "." + head, "dots": "a.b.c", "bad_json": "e30.AAAA",
		"non_ascii": "トークン",
	} {
		content := "go test fuzz v1\nstring(" + strconv.Quote(tok) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func BenchmarkSignVerify(b *testing.B) {
	s := NewSigner(testSecret, func() time.Time { return epoch })
	p := scrapePayload{URL: "https://example.com/some/long/path?with=query", Offset: 12000}
	b.ReportAllocs()
	for b.Loop() {
		tok, err := s.Sign("scrape_url", p)
		if err != nil {
			b.Fatal(err)
		}
		var out scrapePayload
		if err := s.Verify("scrape_url", tok, &out); err != nil {
			b.Fatal(err)
		}
	}
}
