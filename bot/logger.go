package bot

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"
)

// dgLogger receives discordgo's own log lines. discordgo has one logger for
// the whole process (a package variable), so the newest Bot's wins.
var (
	dgLogger     atomic.Pointer[slog.Logger]
	dgLoggerOnce sync.Once
)

// maxLogLine bounds a discordgo line: some carry a whole gateway payload.
const maxLogLine = 2000

// routeDiscordgoLogs sends discordgo's log lines, which it would print as
// "[DG0] …" on stderr, to logger with component=discordgo and a slog level.
// Warnings and errors are kept: among them are gateway events it could not
// parse, which it would otherwise only print.
// It returns the logger it installed, for unrouteDiscordgoLogs.
func routeDiscordgoLogs(s *discordgo.Session, logger *slog.Logger) *slog.Logger {
	l := logger.With(slog.String("component", "discordgo"))
	dgLogger.Store(l)
	s.LogLevel = discordgo.LogWarning
	dgLoggerOnce.Do(func() { discordgo.Logger = logDiscordgo })
	return l
}

// unrouteDiscordgoLogs stops sending discordgo's lines to l, if they still
// go there: a stopped bot's logger may write somewhere that is gone.
func unrouteDiscordgoLogs(l *slog.Logger) { dgLogger.CompareAndSwap(l, nil) }

func logDiscordgo(level, _ int, format string, args ...any) {
	l := dgLogger.Load()
	if l == nil {
		return
	}
	lvl := slog.LevelDebug
	switch level {
	case discordgo.LogError:
		lvl = slog.LevelError
	case discordgo.LogWarning:
		lvl = slog.LevelWarn
	case discordgo.LogInformational:
		lvl = slog.LevelInfo
	}
	if !l.Enabled(context.Background(), lvl) {
		return
	}
	msg := strings.TrimSpace(fmt.Sprintf(format, args...))
	if r := []rune(msg); len(r) > maxLogLine {
		msg = string(r[:maxLogLine]) + "…"
	}
	l.Log(context.Background(), lvl, msg)
}
