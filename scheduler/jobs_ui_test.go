package scheduler

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// The job UI is built on its first request, once however many arrive
// together, with the process's context; a failed build answers 503 and is
// tried again.
func TestJobsUIBuiltOnFirstRequest(t *testing.T) {
	var builds atomic.Int32
	fail := true
	type ctxKey struct{}
	j := &JobsUI{
		log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		build: func(ctx context.Context) (http.Handler, error) {
			builds.Add(1)
			if ctx.Value(ctxKey{}) != "process" {
				t.Error("built without the process's context")
			}
			if fail {
				return nil, errors.New("no database")
			}
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "River") }), nil
		},
	}
	get := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		j.ServeHTTP(rec, httptest.NewRequest("GET", "/jobs/", nil))
		return rec
	}

	if rec := get(); rec.Code != http.StatusServiceUnavailable || builds.Load() != 0 {
		t.Errorf("before start: %d, %d builds", rec.Code, builds.Load())
	}
	j.Start(context.WithValue(context.Background(), ctxKey{}, "process"))
	if builds.Load() != 0 {
		t.Fatal("start built the UI")
	}
	if rec := get(); rec.Code != http.StatusServiceUnavailable || builds.Load() != 1 {
		t.Errorf("failing build: %d, %d builds", rec.Code, builds.Load())
	}

	fail = false
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if rec := get(); rec.Code != http.StatusOK || rec.Body.String() != "River" {
				t.Errorf("after the failure: %d %q", rec.Code, rec.Body.String())
			}
		})
	}
	wg.Wait()
	if n := builds.Load(); n != 2 {
		t.Errorf("%d builds, want 2 (the failed one and one more)", n)
	}
}
