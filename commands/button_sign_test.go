package commands

import (
	"errors"
	"strings"
	"testing"
)

// A signed id reads back to its fields under its own key and prefix only;
// a changed field or another key is forged, any other shape is refused.
func TestButtonSigner(t *testing.T) {
	s := ButtonSigner{Key: []byte("secret")}
	id := s.ID("yz:t:", "stop", "123", "456")
	if len(id) > 100 {
		t.Errorf("custom id %q is longer than Discord's 100", id)
	}
	got, err := s.Read(id, "yz:t:", 3)
	if err != nil || strings.Join(got, ",") != "stop,123,456" {
		t.Fatalf("read %q: %q, %v", id, got, err)
	}
	for _, tc := range []struct {
		name, id string
		signer   ButtonSigner
		forged   bool
	}{
		{"another key", id, ButtonSigner{Key: []byte("another")}, true},
		{"a changed field", strings.Replace(id, ":123:", ":124:", 1), s, true},
		{"no key", id, ButtonSigner{}, false},
		{"another prefix", strings.Replace(id, "yz:t:", "yz:u:", 1), s, false},
		{"a field short", s.ID("yz:t:", "stop", "123"), s, false},
		{"empty", "", s, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.signer.Read(tc.id, "yz:t:", 3)
			if err == nil || errors.Is(err, ErrForgedButton) != tc.forged {
				t.Errorf("read %q: %v, want an error (forged: %v)", tc.id, err, tc.forged)
			}
		})
	}
}
