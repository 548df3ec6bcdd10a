package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// TestHealthcheck: "yorozu healthcheck" exits 0 while /readyz is 200 and
// fails with the failing checks otherwise, or when nothing answers.
func TestHealthcheck(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	check := func(addr string) (string, error) {
		var stdout, stderr bytes.Buffer
		env := map[string]string{"HTTP_ADDR": addr}
		err := run(ctx, []string{"healthcheck"}, func(k string) string { return env[k] }, &stdout, &stderr)
		return stdout.String(), err
	}

	h := start(t, nil)
	h.waitReadyz(t, func(code int, _ map[string]string) bool { return code == http.StatusOK })
	out, err := check(strings.TrimPrefix(h.httpURL, "http://"))
	if err != nil || !strings.Contains(out, `"ready":true`) {
		t.Errorf("healthcheck of a ready yorozu = %q, %v", out, err)
	}

	unready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"ready":false,"checks":{"database":"failed to connect"}}`))
	}))
	defer unready.Close()
	if _, err := check(strings.TrimPrefix(unready.URL, "http://")); err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "database") {
		t.Errorf("healthcheck of an unready yorozu: %v, want the 503 and the failing check", err)
	}

	unready.Close()
	if _, err := check(strings.TrimPrefix(unready.URL, "http://")); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("healthcheck with nothing listening: %v", err)
	}
}

// TestComposeHealthcheckRunsTheSubcommand: the compose file is valid and
// its yorozu service's health check is "yorozu healthcheck" at the path the
// Dockerfile installs the binary to, as is the image's own HEALTHCHECK.
func TestComposeHealthcheckRunsTheSubcommand(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Healthcheck struct {
				Test []string `yaml:"test"`
			} `yaml:"healthcheck"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &compose); err != nil {
		t.Fatalf("deploy/compose.yaml: %v", err)
	}
	want := []string{"CMD", "/usr/local/bin/yorozu", "healthcheck"}
	if got := compose.Services["yorozu"].Healthcheck.Test; !slices.Equal(got, want) {
		t.Errorf("compose yorozu healthcheck = %q, want %q", got, want)
	}
	dockerfile, err := os.ReadFile("../../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"COPY --from=build /out/yorozu /usr/local/bin/yorozu", `CMD ["/usr/local/bin/yorozu", "healthcheck"]`} {
		if !bytes.Contains(dockerfile, []byte(line)) {
			t.Errorf("deploy/Dockerfile lacks %q", line)
		}
	}
}
