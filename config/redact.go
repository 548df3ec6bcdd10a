package config

import (
	"net/url"
	"regexp"
	"strings"
)

// redacted replaces a secret in a URL.
const redacted = "xxxxx"

// secretParam matches query parameter names that usually carry a secret.
var secretParam = regexp.MustCompile(`(?i)key|token|secret|pass|pwd|auth|sig|cred|session|code`)

// webhookPath is a Discord webhook's path: its last segment is the token.
var webhookPath = regexp.MustCompile(`(/webhooks/[0-9]+/)[^/?#]+`)

// RedactURL returns raw with its secrets masked: the userinfo (user and
// password), the values of query parameters whose names suggest a secret
// (key, token, password, signature, …) and a Discord webhook's token. A
// value that does not parse as a URL is returned as "xxxxx" unless it
// holds nothing that could be a secret.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if strings.ContainsAny(raw, "@?") {
			return redacted
		}
		return raw
	}
	if u.User != nil {
		u.User = url.User(redacted)
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if secretParam.MatchString(k) {
				q[k] = []string{redacted}
			}
		}
		// Encode sorts the keys; keep the original text when nothing changed
		// so logs still match what was configured.
		if enc := q.Encode(); enc != u.Query().Encode() {
			u.RawQuery = strings.ReplaceAll(enc, url.QueryEscape(redacted), redacted)
		}
	}
	if webhookPath.MatchString(u.Path) {
		u.Path = webhookPath.ReplaceAllString(u.Path, "${1}"+redacted)
		u.RawPath = ""
	}
	return u.String()
}

// urlInText finds absolute URLs in free text such as an error message.
var urlInText = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>\x60]+`)

// RedactURLs masks, as RedactURL does, every URL in s: error messages of
// HTTP clients quote the URL they called.
func RedactURLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, RedactURL)
}
