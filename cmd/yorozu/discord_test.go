package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/scheduler"
)

// readyz returns /readyz's status code and checks.
func (h *harness) readyz(t testing.TB) (int, map[string]string) {
	t.Helper()
	resp, err := http.Get(h.httpURL + "/readyz")
	if err != nil {
		t.Fatalf("/readyz: %v (the HTTP server must keep running)", err)
	}
	defer resp.Body.Close()
	var r struct{ Checks map[string]string }
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, r.Checks
}

// waitReadyz polls /readyz until cond holds.
func (h *harness) waitReadyz(t testing.TB, cond func(int, map[string]string) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, checks := h.readyz(t)
		if cond(code, checks) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never as wanted; last %d %v\nstderr:\n%s", code, checks, h.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDiscordRefusalsKeepServing: a gateway that refuses the intents or the
// token does not end the process. It says once, in the log, what to fix;
// /readyz names it; and after the fix a SIGHUP connects at once.
func TestDiscordRefusalsKeepServing(t *testing.T) {
	tests := []struct {
		name       string
		fault      func(*discordtest.Server)
		fix        func(*discordtest.Server)
		code, says string
	}{
		{"disallowed intents", func(s *discordtest.Server) { s.CloseGateway(4014) }, func(s *discordtest.Server) { s.CloseGateway(0) },
			bot.DiagDisallowedIntents, "Developer Portal → Bot → Privileged Gateway Intents で Message Content Intent を有効にしてください"},
		{"bad token", func(s *discordtest.Server) { s.RejectToken(true) }, func(s *discordtest.Server) { s.RejectToken(false) },
			bot.DiagInvalidToken, "DISCORD_TOKEN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := startPrepared(t, nil, tc.fault)
			code, checks := h.readyz(t)
			if code != http.StatusServiceUnavailable || !strings.Contains(checks["discord"], tc.says) || checks["database"] != "ok" {
				t.Errorf("/readyz = %d %v, want 503 naming the fix", code, checks)
			}
			if n := strings.Count(h.stderr.String(), "diagnosis="+tc.code); n != 1 {
				t.Errorf("diagnosis logged %d times, want once:\n%s", n, h.stderr.String())
			}
			if !strings.Contains(h.stderr.String(), tc.says) {
				t.Errorf("the log line does not name the fix:\n%s", h.stderr.String())
			}
			tc.fix(h.discord)
			if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			h.waitReadyz(t, func(code int, _ map[string]string) bool { return code == http.StatusOK })
			h.script(ollamatest.Text("つながりました。"))
			h.mention(aliceID, "聞こえる？")
			h.waitReply(t, 1, equals("つながりました。"))
		})
	}
}

// namedJob is a run of one of the scheduler's named jobs as River stores
// it, for a test that queues one as another process would.
type namedJob struct {
	Name string `json:"name"`
}

func (namedJob) Kind() string { return "named_job" }

// TestDiscordUnreachableAtStart: with no route to Discord yorozu serves HTTP
// and the jobs, says it is connecting, and answers once Discord is back.
func TestDiscordUnreachableAtStart(t *testing.T) {
	h := startPrepared(t, nil, func(s *discordtest.Server) { s.SetUnreachable(true) })
	code, checks := h.readyz(t)
	if code != http.StatusServiceUnavailable || !strings.HasPrefix(checks["discord"], "connecting: ") {
		t.Errorf("/readyz = %d %v, want 503 with discord: connecting: …", code, checks)
	}
	// The jobs run meanwhile: a run of the knowledge-base sync that another
	// process queues (through River, which tells the queue) is worked.
	other, err := river.NewClient(riverpgxv5.New(h.pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Insert(context.Background(), namedJob{Name: scheduler.KnowledgeBaseSyncJob},
		&river.InsertOpts{Queue: scheduler.QueueJobs}); err != nil {
		t.Fatal(err)
	}
	h.waitCount(t, `SELECT count(*) FROM river_job WHERE kind = 'named_job' AND state = 'completed'`, 1)
	h.discord.SetUnreachable(false)
	h.waitReadyz(t, func(code int, _ map[string]string) bool { return code == http.StatusOK })
	h.script(ollamatest.Text("戻りました。"))
	h.mention(aliceID, "いる？")
	h.waitReply(t, 1, equals("戻りました。"))
}

// TestBotInNoServer: the log and /readyz give the invite URL until the bot
// joins a server.
func TestBotInNoServer(t *testing.T) {
	h := startPrepared(t, nil, func(s *discordtest.Server) { s.SetGuilds() })
	invite := bot.InviteURL(h.discord.AppID())
	code, checks := h.readyz(t)
	if code != http.StatusServiceUnavailable || !strings.Contains(checks["discord"], invite) {
		t.Errorf("/readyz = %d %v, want 503 with the invite URL", code, checks)
	}
	if !strings.Contains(h.stderr.String(), invite) {
		t.Errorf("the log does not print the invite URL:\n%s", h.stderr.String())
	}
	h.discord.JoinGuild(guildID)
	h.waitReadyz(t, func(code int, _ map[string]string) bool { return code == http.StatusOK })
}

// TestSlashCommandsRefused: a refused registration leaves the bot answering
// and ready, /readyz names the command, and a later retry registers it.
func TestSlashCommandsRefused(t *testing.T) {
	h := startPrepared(t, nil, func(s *discordtest.Server) { s.RefuseCommand("memory") })
	code, checks := h.readyz(t)
	if code != http.StatusOK || !strings.HasPrefix(checks["commands"], "not registered: /memory") {
		t.Errorf("/readyz = %d %v, want 200 with commands: not registered: /memory …", code, checks)
	}
	if !strings.Contains(h.stderr.String(), `commands="/memory`) {
		t.Errorf("the warning does not name the command:\n%s", h.stderr.String())
	}
	h.script(ollamatest.Text("コマンドがなくても答えます。"))
	h.mention(aliceID, "こんにちは")
	h.waitReply(t, 1, equals("コマンドがなくても答えます。"))

	h.discord.RefuseCommand("")
	h.waitReadyz(t, func(_ int, checks map[string]string) bool { return checks["commands"] == "ok" })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h.discord.WaitFor(ctx, func() bool {
		for _, c := range h.discord.Commands() {
			if c.Name == "memory" {
				return true
			}
		}
		return false
	})
}
