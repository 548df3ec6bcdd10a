package main

import (
	"log/slog"

	"github.com/yorozu-bot/yorozu/config"
)

// redactURLs is the logger's ReplaceAttr: every string and error it prints
// has the secrets of the URLs it quotes masked (userinfo, secret query
// values, webhook tokens), whoever logged it — an HTTP client's error
// names the URL it called, OLLAMA_HOST's credentials included.
func redactURLs(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(config.RedactURLs(a.Value.String()))
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok && err != nil {
			a.Value = slog.StringValue(config.RedactURLs(err.Error()))
		}
	}
	return a
}
