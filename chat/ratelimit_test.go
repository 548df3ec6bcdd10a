package chat

import (
	"testing"
	"time"
)

func TestRateLimiter(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := NewRateLimiter(3, time.Minute)
	for i := range 3 {
		if ok, _ := l.Allow("u1", now); !ok {
			t.Fatalf("turn %d refused", i+1)
		}
	}
	if ok, notify := l.Allow("u1", now); ok || !notify {
		t.Fatalf("4th turn = %v notify %v, want refused with one notice", ok, notify)
	}
	if ok, notify := l.Allow("u1", now); ok || notify {
		t.Fatalf("5th turn = %v notify %v, want refused silently", ok, notify)
	}
	if ok, _ := l.Allow("u2", now); !ok {
		t.Error("another user was limited")
	}
	// A third of the window gives one turn back.
	if ok, _ := l.Allow("u1", now.Add(20*time.Second)); !ok {
		t.Error("no turn back after window/limit")
	}
	// Idle users are forgotten.
	l.Allow("u3", now.Add(3*time.Minute))
	l.mu.Lock()
	n := len(l.users)
	l.mu.Unlock()
	if n != 1 {
		t.Errorf("%d users kept after they went idle, want 1", n)
	}
	l.Set(0, time.Minute)
	for range 10 {
		if ok, _ := l.Allow("u1", now); !ok {
			t.Fatal("limit 0 refused a turn")
		}
	}
}
