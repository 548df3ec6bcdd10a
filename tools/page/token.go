package page

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// TTL is how long a continuation token stays valid.
const TTL = 30 * time.Minute

// version is the token format; bump it when payloads change incompatibly so
// old tokens fail cleanly instead of decoding wrongly.
const version = 1

var b64 = base64.RawURLEncoding.Strict()

// TokenError reports a continuation token that cannot be used. Reason is
// short and safe to show to the model.
type TokenError struct {
	Reason string
}

func (e *TokenError) Error() string { return "invalid continuation token: " + e.Reason }

// Message is the text a tool returns to the model for this error.
func (e *TokenError) Message() string { return "Invalid continuation token: " + e.Reason }

// Signer signs and verifies continuation tokens.
type Signer struct {
	secret []byte
	now    func() time.Time
}

// NewSecret returns a fresh random secret for NewSigner, to be stored once
// (the lead keeps it in app_settings) so tokens survive restarts.
func NewSecret() []byte {
	s := make([]byte, 32)
	rand.Read(s) // never fails (crypto/rand panics on its own rather than return an error)
	return s
}

// NewSigner returns a Signer keyed by secret, reading the clock from now
// (time.Now when nil). An empty secret is replaced by a random one, which
// makes tokens die with the process.
func NewSigner(secret []byte, now func() time.Time) *Signer {
	if len(secret) == 0 {
		secret = NewSecret()
	}
	if now == nil {
		now = time.Now
	}
	return &Signer{secret: bytes.Clone(secret), now: now}
}

// Sign returns a token for tool carrying payload, which must marshal to a
// JSON object without the reserved keys v, tool and exp.
func (s *Signer) Sign(tool string, payload any) (string, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return "", fmt.Errorf("sign %s token: %w", tool, err)
	}
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' {
		return "", fmt.Errorf("sign %s token: payload is not a JSON object", tool)
	}
	var reserved struct{ V, Tool, Exp json.RawMessage }
	if json.Unmarshal(body, &reserved) == nil && (reserved.V != nil || reserved.Tool != nil || reserved.Exp != nil) {
		return "", fmt.Errorf("sign %s token: payload uses a reserved key", tool)
	}
	toolJSON, _ := json.Marshal(tool)
	var b bytes.Buffer
	b.Grow(len(body) + len(tool) + 48)
	b.WriteString(`{"v":` + strconv.Itoa(version) + `,"tool":`)
	b.Write(toolJSON)
	b.WriteString(`,"exp":` + strconv.FormatInt(s.now().Add(TTL).Unix(), 10))
	if len(body) > 2 {
		b.WriteByte(',')
		b.Write(body[1:])
	} else {
		b.WriteByte('}')
	}
	head := asciiJSON(b.Bytes())
	enc := make([]byte, b64.EncodedLen(len(head)), b64.EncodedLen(len(head))+1+b64.EncodedLen(sha256.Size))
	b64.Encode(enc, head)
	sig := s.mac(enc)
	enc = append(enc, '.')
	return string(b64.AppendEncode(enc, sig)), nil
}

func (s *Signer) mac(data []byte) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write(data)
	return m.Sum(nil)
}

type header struct {
	V    *int   `json:"v"`
	Tool string `json:"tool"`
	Exp  *int64 `json:"exp"`
}

// Verify checks token for tool and decodes its payload into dst. Every
// failure is a *TokenError.
func (s *Signer) Verify(tool, token string, dst any) error {
	bad := func(reason string) error { return &TokenError{Reason: reason} }
	for i := 0; i < len(token); i++ {
		c := token[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return bad("malformed token")
		}
	}
	dot := bytes.IndexByte([]byte(token), '.')
	if dot <= 0 || dot == len(token)-1 {
		return bad("malformed token")
	}
	headB64, sigB64 := token[:dot], token[dot+1:]
	sig, err := b64.DecodeString(sigB64)
	if err != nil || len(sig) != sha256.Size {
		return bad("malformed signature")
	}
	if !hmac.Equal(sig, s.mac([]byte(headB64))) {
		return bad("signature mismatch")
	}
	head, err := b64.DecodeString(headB64)
	if err != nil {
		return bad("malformed token")
	}
	var h header
	if err := json.Unmarshal(head, &h); err != nil || h.V == nil || h.Exp == nil {
		return bad("malformed token")
	}
	if *h.V != version {
		return bad("unsupported version " + strconv.Itoa(*h.V))
	}
	if h.Tool != tool {
		return bad("token was issued for another tool")
	}
	if !s.now().Before(time.Unix(*h.Exp, 0)) {
		return bad("token expired")
	}
	if dst != nil {
		if err := json.Unmarshal(head, dst); err != nil {
			return bad("malformed payload")
		}
	}
	return nil
}

// asciiJSON escapes every non-ASCII rune of compact JSON as \uXXXX. Outside
// strings JSON is ASCII already, so this only touches string contents.
func asciiJSON(js []byte) []byte {
	i := 0
	for i < len(js) && js[i] < utf8.RuneSelf {
		i++
	}
	if i == len(js) {
		return js
	}
	out := make([]byte, i, len(js)+len(js)/2)
	copy(out, js[:i])
	const hex = "0123456789abcdef"
	esc := func(r rune) {
		out = append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	for i < len(js) {
		if js[i] < utf8.RuneSelf {
			out = append(out, js[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(js[i:])
		i += n
		if r > 0xffff {
			r -= 0x10000
			esc(0xd800 + r>>10&0x3ff)
			esc(0xdc00 + r&0x3ff)
			continue
		}
		esc(r)
	}
	return out
}
