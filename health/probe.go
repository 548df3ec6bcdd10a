package health

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// healthcheckTimeout bounds the whole check; /readyz runs its checks with
// 2 s deadlines each.
const healthcheckTimeout = 10 * time.Second

// Probe asks the yorozu serving httpAddr (HTTP_ADDR) on this host for
// /readyz, writes the answer to stdout and fails unless it is 200: a
// container's health check, for an image that has no curl or wget.
func Probe(ctx context.Context, httpAddr string, stdout io.Writer) error {
	addr, err := localAddr(httpAddr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/readyz", nil)
	if err != nil {
		return fmt.Errorf("healthcheck %s: %w", addr, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: cannot reach yorozu at %s (HTTP_ADDR): %w", addr, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: not ready (%s): %s", resp.Status, strings.TrimSpace(string(body)))
	}
	_, err = stdout.Write(body)
	return err
}

// localAddr is the address to dial for a server listening on listen: an
// unspecified host (all interfaces) is reached on loopback.
func localAddr(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("HTTP_ADDR %q: %w", listen, err)
	}
	if port == "0" {
		return "", errors.New("HTTP_ADDR has port 0 (a port chosen at start): there is no fixed address to check")
	}
	switch ip := net.ParseIP(host); {
	case host == "" || (ip != nil && ip.IsUnspecified() && ip.To4() != nil):
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	return net.JoinHostPort(host, port), nil
}
