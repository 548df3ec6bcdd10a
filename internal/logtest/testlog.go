// Package logtest is a log destination that tests read while the code
// under test writes to it from its own goroutines.
package logtest

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"sync"
)

// Buffer collects what is written to it, from any goroutine; a test reads
// it at any time, or waits for a line. The zero value is ready to use.
type Buffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // made by the first wait; holds one signal at most
}

// Write appends p and wakes a waiting WaitFor.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		select {
		case b.written <- struct{}{}:
		default:
		}
	}
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitFor waits until what was written matches re and returns the match's
// last submatch (the whole match when re has no group). The error, when
// ctx ends first, shows what was written.
func (b *Buffer) WaitFor(ctx context.Context, re *regexp.Regexp) (string, error) {
	b.mu.Lock()
	if b.written == nil {
		b.written = make(chan struct{}, 1)
	}
	written := b.written
	b.mu.Unlock()
	for {
		if m := re.FindStringSubmatch(b.String()); m != nil {
			return m[len(m)-1], nil
		}
		select {
		case <-written:
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for %s: %w\nwritten so far:\n%s", re, ctx.Err(), b.String())
		}
	}
}
