package web

import (
	"errors"
	"strconv"
	"strings"

	"github.com/yorozu-bot/yorozu/config"
)

// SettingDefs lists what the admin page may change, the environment giving
// each default. Every one takes effect at once, on every process sharing the
// database. validCron checks a schedule as the scheduler reads it.
func SettingDefs(cfg *config.Config, validCron func(expr string) error) []SettingDef {
	notEmpty := func(v string) error {
		if v == "" {
			return errors.New("空にはできません（環境変数の値に戻すには null を送ってください）")
		}
		return nil
	}
	cron := func(v string) error {
		if v == "" || validCron(v) == nil {
			return nil
		}
		// The parser's own words are English and name its internals.
		return errors.New("時刻として読めません。「分 時 日 月 曜日」の 5 つを空白で区切って書きます（例: 30 6 * * * は毎朝 6:30、0 12 * * 1-5 は平日の 12:00）")
	}
	snowflake := func(v string) error {
		if _, err := strconv.ParseUint(v, 10, 64); v != "" && err != nil {
			return errors.New("チャンネル ID（Discord の数字の ID）を入れてください")
		}
		return nil
	}
	webhook := func(v string) error {
		if v != "" && !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "http://") {
			return errors.New("URL（https://…）を入れてください")
		}
		return nil
	}
	var defs []SettingDef
	defs = append(defs,
		SettingDef{Key: "search_backend", Label: "検索エンジン", Env: "SEARCH_BACKEND", Default: cfg.SearchBackend, Live: true,
			Choices: []string{"duckduckgo", "searxng", "tavily"}},
		SettingDef{Key: "searxng_url", Label: "SearXNG の URL", Env: "SEARXNG_URL", Default: cfg.SearxngURL, Live: true, Validate: webhook},
		SettingDef{Key: "tavily_api_key", Label: "Tavily API キー", Env: "TAVILY_API_KEY", Default: cfg.TavilyAPIKey, Secret: true, Live: true},
		SettingDef{Key: "default_model", Label: "会話のモデル", Env: "DEFAULT_MODEL", Default: cfg.DefaultModel, Live: true, Validate: notEmpty},
		SettingDef{Key: "reminder_model", Label: "リマインダーのモデル", Env: "REMINDER_MODEL", Default: cfg.ReminderModel, Live: true, Validate: notEmpty},
		SettingDef{Key: "weather_notify_model", Label: "天気投稿のモデル", Env: "WEATHER_NOTIFY_MODEL", Default: cfg.WeatherNotifyModel, Live: true, Validate: notEmpty},
		SettingDef{Key: "user_rate_limit", Label: "1 人あたりの会話数の上限", Env: "USER_RATE_LIMIT",
			Default: config.RateText(cfg.UserRateLimit, cfg.UserRateWindow), Live: true,
			Validate: func(v string) error {
				if _, _, err := config.ParseRate(v); err != nil {
					// The parser's words are English and name the variable.
					return errors.New("「回数/期間」で書きます（例: 6/min は 1 分に 6 回まで、3/30s は 30 秒に 3 回まで、0 で制限なし）")
				}
				return nil
			}},
		SettingDef{Key: "weather_cron", Label: "天気投稿の時刻（cron）", Env: "WEATHER_CRON", Default: cfg.WeatherCron, Live: true, Validate: cron},
		SettingDef{Key: "weather_webhook_url", Label: "天気投稿の Webhook", Env: "WEATHER_WEBHOOK_URL", Default: cfg.WeatherWebhookURL, Secret: true, Live: true, Validate: webhook},
		SettingDef{Key: "weather_channel_id", Label: "天気投稿のチャンネル", Env: "WEATHER_CHANNEL_ID", Default: cfg.WeatherChannelID, Live: true, Channel: true, Validate: snowflake},
		SettingDef{Key: "tips_cron", Label: "Tips 投稿の時刻（cron）", Env: "TIPS_CRON", Default: cfg.TipsCron, Live: true, Validate: cron},
		SettingDef{Key: "tips_webhook_url", Label: "Tips 投稿の Webhook", Env: "TIPS_WEBHOOK_URL", Default: cfg.TipsWebhookURL, Secret: true, Live: true, Validate: webhook},
		SettingDef{Key: "tips_channel_id", Label: "Tips 投稿のチャンネル", Env: "TIPS_CHANNEL_ID", Default: cfg.TipsChannelID, Live: true, Channel: true, Validate: snowflake},
	)
	return defs
}
