package config

import (
	"log/slog"
)

// RedactAttr is a logger's ReplaceAttr: every string and error it prints
// has the secrets of the URLs it quotes masked (userinfo, secret query
// values, webhook tokens), whoever logged it — an HTTP client's error
// names the URL it called, OLLAMA_HOST's credentials included.
func RedactAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(RedactURLs(a.Value.String()))
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok && err != nil {
			a.Value = slog.StringValue(RedactURLs(err.Error()))
		}
	}
	return a
}
