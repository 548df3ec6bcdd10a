package commands

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// ButtonSigner signs the custom ids of yorozu's message buttons and checks
// them when one is pressed, so a press on a message from before a restart
// still works (on whichever process holds the gateway) and a forged id is
// refused. An id is its prefix, its fields and a signature, joined by ":":
//
//	<prefix><field>:<field>…:<signature>
//
// The key is the same on every process and kept across restarts; with no
// key there are no buttons.
type ButtonSigner struct{ Key []byte }

// ErrForgedButton is a custom id whose signature does not match: made up,
// or signed with another key.
var ErrForgedButton = errors.New("the button's id is not one yorozu signed")

// buttonSigLen is a signature's length in base64 characters (96 bits).
const buttonSigLen = 16

// Enabled reports whether there is a key to sign with.
func (s ButtonSigner) Enabled() bool { return len(s.Key) > 0 }

// ID is the signed custom id of fields under prefix. No field may hold ":".
func (s ButtonSigner) ID(prefix string, fields ...string) string {
	body := strings.Join(fields, ":")
	return prefix + body + ":" + s.sign(body)
}

// Read checks a pressed button's custom id made by ID with prefix and n
// fields and returns the fields. An id of another shape is an error; a bad
// signature is ErrForgedButton.
func (s ButtonSigner) Read(customID, prefix string, n int) ([]string, error) {
	rest, ok := strings.CutPrefix(customID, prefix)
	parts := strings.Split(rest, ":")
	if !ok || len(parts) != n+1 || !s.Enabled() {
		return nil, fmt.Errorf("button %q: not a %s button", customID, prefix)
	}
	body := strings.Join(parts[:n], ":")
	if !hmac.Equal([]byte(parts[n]), []byte(s.sign(body))) {
		return nil, fmt.Errorf("button %q: %w", customID, ErrForgedButton)
	}
	return parts[:n], nil
}

func (s ButtonSigner) sign(body string) string {
	mac := hmac.New(sha256.New, s.Key)
	mac.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))[:buttonSigLen]
}
