package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// dataDirUnderAFile is a DATA_DIR that cannot be created, even by root (the
// tests run as root in CI, where a read-only directory is still writable):
// its parent is a regular file. unblock turns it into a directory.
func dataDirUnderAFile(t *testing.T) (dir string, unblock func()) {
	t.Helper()
	blocker := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(blocker, []byte("in the way\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(blocker, "data"), func() {
		if err := os.Remove(blocker); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(blocker, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStartupDiagnoses: Ollama down, a model not pulled, a chat model
// without tool support and a DATA_DIR that cannot be written are each
// logged once, in Japanese and English with the fix, while the HTTP server
// and Discord keep running; /readyz names them; once fixed, the background
// checks turn /readyz green with no restart.
func TestStartupDiagnoses(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		prep  func(*testing.T, *harness) (fix func())
		check string // the /readyz check that names it
		code  string // the log's diagnosis
		says  []string
		ready bool // a warning: /readyz stays 200
	}{
		{
			name:  "ollama down",
			prep:  func(_ *testing.T, h *harness) func() { h.ollama.Down(); return h.ollama.Up },
			check: "ollama", code: "ollama_unreachable",
			says: []string{"Ollama に接続できません / cannot reach Ollama at http://127.0.0.1:", "OLLAMA_HOST を Ollama のアドレスにしてください", "set OLLAMA_HOST to where it runs"},
		},
		{
			name: "model not pulled",
			env:  map[string]string{"REMINDER_MODEL": "llama3"},
			prep: func(_ *testing.T, h *harness) func() {
				return func() { h.ollama.AddModel("llama3", "completion", "tools") }
			},
			check: "models", code: "model_not_pulled",
			says: []string{"モデル llama3（REMINDER_MODEL）がありません / model llama3 (REMINDER_MODEL) is not pulled", "run on the Ollama server: ollama pull llama3"},
		},
		{
			name: "embedding model not pulled",
			prep: func(_ *testing.T, h *harness) func() {
				h.ollama.RemoveModel(embedModel)
				return func() { h.ollama.AddModel(embedModel, "embedding") }
			},
			check: "models", code: "model_not_pulled",
			says: []string{"model bge-m3 (EMBED_MODEL) is not pulled", "ollama pull bge-m3"},
		},
		{
			name: "chat model without tools",
			env:  map[string]string{"DEFAULT_MODEL": "gemma3"},
			prep: func(_ *testing.T, h *harness) func() {
				h.ollama.AddModel("gemma3", "completion")
				return nil
			},
			check: "models", code: "model_without_tools", ready: true,
			says: []string{"モデル gemma3（DEFAULT_MODEL, REMINDER_MODEL, WEATHER_NOTIFY_MODEL）はツール呼び出しに対応していません", "tools go through structured output"},
		},
		{
			name: "DATA_DIR under a regular file",
			prep: func(t *testing.T, h *harness) func() {
				dir, unblock := dataDirUnderAFile(t)
				h.env["DATA_DIR"] = dir
				return unblock
			},
			check: "data_dir", code: "data_dir_not_writable",
			says: []string{"に書き込めません / DATA_DIR", "is not writable", "not a directory", "set DATA_DIR to a directory the user running yorozu can write"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var fix func()
			h := startHarness(t, tc.env, func(h *harness) { fix = tc.prep(t, h) })
			// The checks run in the background: the first round is what
			// /readyz waits for.
			code, checks := h.readyz(t)
			wantCode := http.StatusServiceUnavailable
			if tc.ready {
				wantCode = http.StatusOK
			}
			if code != wantCode || checks["database"] != "ok" {
				t.Errorf("/readyz = %d %v, want %d", code, checks, wantCode)
			}
			for _, s := range tc.says {
				if !strings.Contains(checks[tc.check], s) {
					t.Errorf("/readyz %s = %q, want it to say %q", tc.check, checks[tc.check], s)
				}
			}
			for name, v := range checks {
				if name != tc.check && v != "ok" && !(tc.check == "ollama" && name == "models") {
					t.Errorf("/readyz %s = %q, want ok", name, v)
				}
			}
			// Two more rounds of checks, at once on SIGHUP (each asks Ollama
			// its version when it answers), say nothing new.
			if tc.check != "ollama" {
				for range 2 {
					rounds := h.ollama.VersionCalls()
					if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
						t.Fatal(err)
					}
					waitFor(t, "a round of checks after SIGHUP", func() bool { return h.ollama.VersionCalls() > rounds })
				}
			}
			log := h.stderr.String()
			if n := strings.Count(log, "diagnosis="+tc.code); n != 1 {
				t.Errorf("diagnosis %s logged %d times, want once:\n%s", tc.code, n, log)
			}
			for _, s := range tc.says {
				if !strings.Contains(log, s) {
					t.Errorf("the log does not say %q:\n%s", s, log)
				}
			}
			// Discord still answers.
			h.script(ollamatest.Text("動いています。"))
			if tc.check != "ollama" {
				h.mention(aliceID, "動いてる？")
				h.waitReply(t, 1, equals("動いています。"))
			}
			if fix == nil {
				return
			}
			fix()
			h.waitReadyz(t, func(code int, checks map[string]string) bool {
				return code == http.StatusOK && checks[tc.check] == "ok"
			})
			if n := strings.Count(h.stderr.String(), "diagnosis="+tc.code); n != 1 {
				t.Errorf("after the fix, diagnosis %s logged %d times, want once", tc.code, n)
			}
			if !strings.Contains(h.stderr.String(), "was="+tc.code) {
				t.Errorf("the fix is not logged:\n%s", h.stderr.String())
			}
			if tc.check == "ollama" {
				h.mention(aliceID, "動いてる？")
				h.waitReply(t, 1, equals("動いています。"))
			}
		})
	}
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
