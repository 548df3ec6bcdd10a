package config

import (
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/jma"
)

// DisasterConfig is where and what of JMA's disaster information is posted:
// earthquakes, tsunami and the weather warnings of WEATHER_AREA_CODE. Both
// destinations empty turns it off.
type DisasterConfig struct {
	// QuakeWebhookURL or QuakeChannelID is where the posts go
	// (QUAKE_WEBHOOK_URL, QUAKE_CHANNEL_ID); the webhook wins. The webhook
	// URL is secret.
	QuakeWebhookURL string
	QuakeChannelID  string
	// QuakeMinIntensity is the least intensity (JMA's notation, see
	// jma.Intensities) an earthquake must reach in QuakeAreas to be posted
	// (QUAKE_MIN_INTENSITY, default "3"; 5弱 and 5- are the same).
	QuakeMinIntensity string
	// QuakeAreas are the prefectures of interest as two-digit codes
	// (QUAKE_AREAS: codes or names, comma-separated); empty is all of Japan.
	QuakeAreas []string
	// QuakePoll is how often JMA's lists are read (QUAKE_POLL, default 30s,
	// at least 5s).
	QuakePoll time.Duration
	// QuakeMaxAge is how old a report may be and still be posted
	// (QUAKE_MAX_AGE, default 30m): nothing older goes out, so a first start
	// does not post the past.
	QuakeMaxAge time.Duration
	// QuakeMentionRole is who a post pings from QuakeMentionFrom up
	// (QUAKE_MENTION: "<role id>[:<intensity>]", or "everyone[:<intensity>]");
	// empty pings no one. QuakeMentionFrom defaults to "5-".
	QuakeMentionRole string
	QuakeMentionFrom string
	// WarningIncludeAdvisories posts 注意報 as well as 警報 and 特別警報
	// (WARNING_INCLUDE_ADVISORIES, default false).
	WarningIncludeAdvisories bool
}

// Enabled reports whether the posts have somewhere to go.
func (d DisasterConfig) Enabled() bool { return d.QuakeWebhookURL != "" || d.QuakeChannelID != "" }

// LogValue lists the settings for logs, the webhook reduced to set/unset.
func (d DisasterConfig) LogValue() slog.Value {
	webhook := "unset"
	if d.QuakeWebhookURL != "" {
		webhook = "set"
	}
	return slog.GroupValue(
		slog.String("quake_webhook_url", webhook),
		slog.String("quake_channel_id", d.QuakeChannelID),
		slog.String("quake_min_intensity", d.QuakeMinIntensity),
		slog.String("quake_areas", strings.Join(d.QuakeAreas, ",")),
		slog.Duration("quake_poll", d.QuakePoll),
		slog.Duration("quake_max_age", d.QuakeMaxAge),
		slog.String("quake_mention", d.QuakeMentionRole),
		slog.Bool("warning_include_advisories", d.WarningIncludeAdvisories),
	)
}

// disaster reads the QUAKE_* and WARNING_* variables; hasToken is whether
// DISCORD_TOKEN is set (a channel needs the bot).
func (p *parser) disaster(hasToken bool) DisasterConfig {
	d := DisasterConfig{
		QuakeWebhookURL:          p.optionalURL("QUAKE_WEBHOOK_URL"),
		QuakeChannelID:           p.snowflake("QUAKE_CHANNEL_ID"),
		QuakeMinIntensity:        p.intensity("QUAKE_MIN_INTENSITY", p.value("QUAKE_MIN_INTENSITY", "3"), "3"),
		QuakeAreas:               p.prefectures("QUAKE_AREAS"),
		QuakePoll:                p.duration("QUAKE_POLL", 30*time.Second, 5*time.Second, time.Hour),
		QuakeMaxAge:              p.duration("QUAKE_MAX_AGE", 30*time.Minute, time.Minute, 7*24*time.Hour),
		WarningIncludeAdvisories: p.boolean("WARNING_INCLUDE_ADVISORIES", false),
	}
	if v := p.value("QUAKE_MENTION", ""); v != "" {
		role, from, _ := strings.Cut(v, ":")
		role = strings.TrimSpace(role)
		if from = strings.TrimSpace(from); from == "" {
			from = "5-"
		}
		switch {
		case role == "everyone" || snowflakeRE.MatchString(role):
			d.QuakeMentionRole = role
			d.QuakeMentionFrom = p.intensity("QUAKE_MENTION", from, "5-")
		default:
			p.fail("QUAKE_MENTION", `must be a role id or "everyone", optionally with ":<intensity>" (such as 123456789012345678:5+), got %q`, v)
		}
	}
	if d.QuakeChannelID != "" && d.QuakeWebhookURL == "" && !hasToken {
		p.fail("QUAKE_CHANNEL_ID", "needs DISCORD_TOKEN to post as the bot (or set QUAKE_WEBHOOK_URL instead)")
	}
	return d
}

// intensity reads a seismic intensity: JMA's "5-" or the Japanese "5弱",
// full-width digits and a leading 震度 allowed (jma.ReadIntensity).
func (p *parser) intensity(name, v, def string) string {
	s, ok := jma.ReadIntensity(v)
	if !ok {
		p.fail(name, "must be a seismic intensity (1, 2, 3, 4, 5-, 5+, 6-, 6+, 7; 5弱 and 5強 also read), got %q", v)
		return def
	}
	return s
}

// prefectures reads comma-separated prefecture codes (13) or names (東京都,
// 東京) as two-digit codes, each once.
func (p *parser) prefectures(name string) []string {
	var out []string
	for _, v := range strings.FieldsFunc(p.value(name, ""), func(r rune) bool { return r == ',' || r == '、' }) {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		code, ok := jma.PrefectureCode(v)
		if !ok {
			p.fail(name, "must be comma-separated prefecture codes (01–47) or names (東京都, 大阪), got %q", v)
			return nil
		}
		if !slices.Contains(out, code) {
			out = append(out, code)
		}
	}
	return out
}
