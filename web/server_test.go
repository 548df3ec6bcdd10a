package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

func startServer(t *testing.T, opts Options) string {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	s := New(opts)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return "http://" + s.Addr()
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHealthAndReadiness(t *testing.T) {
	dbErr := errors.New("connection refused")
	var dbDown atomic.Bool
	base := startServer(t, Options{
		Checks: []Check{
			{Name: "database", Fn: func(context.Context) error {
				if dbDown.Load() {
					return dbErr
				}
				return nil
			}},
			{Name: "discord", Fn: func(context.Context) error { return nil }},
			{Name: "commands", Fn: func(context.Context) error { return Degraded(errors.New("not registered: /memory")) }},
		},
		Metrics: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "yorozu_llm_queue_length 2\n")
		}),
		MetricsPublic: true,
	})

	if code, body := get(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}

	code, body := get(t, base+"/readyz")
	if code != 200 || !strings.Contains(body, `"commands":"not registered: /memory"`) {
		t.Errorf("/readyz with all checks passing or degraded = %d %s", code, body)
	}

	dbDown.Store(true)
	code, body = get(t, base+"/readyz")
	var r readiness
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	if code != http.StatusServiceUnavailable || r.Ready || r.Checks["database"] != "connection refused" || r.Checks["discord"] != "ok" {
		t.Errorf("/readyz with the database down = %d %+v", code, r)
	}

	_, body = get(t, base+"/metrics")
	if !strings.Contains(body, "yorozu_llm_queue_length 2\n") {
		t.Errorf("/metrics:\n%s", body)
	}

	if code, _ := get(t, base+"/nope"); code != http.StatusNotFound {
		t.Errorf("unknown path = %d", code)
	}
}
