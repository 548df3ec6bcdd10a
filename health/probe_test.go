package health

import (
	"strings"
	"testing"
)

func TestLocalAddr(t *testing.T) {
	for _, tc := range []struct{ listen, want, err string }{
		{"127.0.0.1:8080", "127.0.0.1:8080", ""},
		{"0.0.0.0:8080", "127.0.0.1:8080", ""},
		{":8080", "127.0.0.1:8080", ""},
		{"[::]:8080", "[::1]:8080", ""},
		{"192.168.1.5:9000", "192.168.1.5:9000", ""},
		{"127.0.0.1:0", "", "port 0"},
	} {
		got, err := localAddr(tc.listen)
		if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("localAddr(%q) = %q, %v; want %q, error with %q", tc.listen, got, err, tc.want, tc.err)
		}
	}
}
