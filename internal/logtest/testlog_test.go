package logtest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWritersAndAWaiter(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				fmt.Fprintf(&b, "writer %d line %d\n", i, j)
			}
		})
	}
	go func() {
		wg.Wait()
		fmt.Fprintln(&b, "ready: http://127.0.0.1:8080")
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := b.WaitFor(ctx, regexp.MustCompile(`ready: http://(\S+)`))
	if err != nil || got != "127.0.0.1:8080" {
		t.Fatalf("WaitFor = %q, %v", got, err)
	}
	if n := strings.Count(b.String(), "\n"); n != 8*50+1 {
		t.Errorf("%d lines kept, want %d", n, 8*50+1)
	}
}

func TestWaitForGivesUpWithWhatWasWritten(t *testing.T) {
	var b Buffer
	fmt.Fprintln(&b, "starting")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := b.WaitFor(ctx, regexp.MustCompile(`ready`))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "starting") {
		t.Fatalf("WaitFor = %v, want the deadline and the output so far", err)
	}
}
