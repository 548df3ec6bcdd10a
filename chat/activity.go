package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/llm"
)

// What a person sees of a turn besides its answer: a line while a tool runs
// and a notice when the turn fails. Both adapters word these their own way
// (Discord markdown, the page's JSON events); what the lines say is decided
// here so that a turn reads the same wherever it is watched.

// OneLine puts s on one line of at most max characters, cut with "…": a
// status line, a title or an error detail, from text that may hold newlines.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		return string([]rune(s)[:max-1]) + "…"
	}
	return s
}

// ToolPreview says what a tool call is about in one line of at most max
// characters, from its JSON arguments: the first of keys that the call has
// (a non-empty string or a number), else the value of a lone string
// argument, nothing for no arguments, else the arguments as they came.
// Without keys only the lone string is picked out.
func ToolPreview(args string, max int, keys ...string) string {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) == nil {
		for _, k := range keys {
			switch v := obj[k].(type) {
			case string:
				if v != "" {
					return OneLine(v, max)
				}
			case float64:
				return OneLine(fmt.Sprint(v), max)
			}
		}
		switch len(obj) {
		case 0:
			return ""
		case 1:
			for _, v := range obj {
				if s, ok := v.(string); ok {
					return OneLine(s, max)
				}
			}
		}
	}
	return OneLine(args, max)
}

// toolLabels name the built-in tools by what they do. The names are the
// tools' own (tools/browse, tools/notes, tools/reminder, tools/knowledge,
// tools/disasterinfo, tools/forecast, tools/channellog; offer_profile_fact, offer_poll and offer_event are chat's own); cmd/yorozu's
// TestEveryToolHasALabel holds every tool the model is offered to a name here.
var toolLabels = map[string]string{
	"web_search":            "Web 検索",
	"scrape_url":            "ページを読む",
	"pdf_to_text":           "PDF を読む",
	"search_and_fetch":      "検索して資料を読む",
	"list_fetched_files":    "取得した資料の一覧",
	"read_fetched_file":     "取得した資料を読む",
	"read_note":             "ノートを読む",
	"write_note":            "ノートに書く",
	"read_knowledge":        "知識を読む",
	"create_reminder":       "リマインダーを作る",
	"list_reminders":        "リマインダーの一覧",
	"cancel_reminder":       "リマインダーを取り消す",
	"create_scheduled_post": "定期投稿を作る",
	"disaster_info":         "防災情報を調べる",
	"weather_forecast":      "天気予報を調べる",
	"search_channel_log":    "チャンネルの記録を検索",
	"offer_profile_fact":    "プロフィールに覚えるか尋ねる",
	"offer_poll":            "投票を用意する",
	"offer_event":           "イベントを用意する",
}

// ToolLabel names a tool call for a person, in Japanese: a built-in tool
// by what it does, any other (an MCP server's, or one a model made up) as
// ツール「name」, so that no call shows up unnamed.
func ToolLabel(name string) string {
	if l, ok := toolLabels[name]; ok {
		return l
	}
	return "ツール「" + name + "」"
}

// FailureTexts word a failed turn for one adapter's readers: Discord users
// are asked to try again later, the admin is told what to check.
type FailureTexts struct {
	// Timeout is for a turn that ran past the router's TurnTimeout.
	Timeout string
	// Unavailable is for Ollama that could not be reached or failed.
	Unavailable string
	// Other words any other error.
	Other func(err error) string
}

// Text is what a person is told when a turn failed with err: Timeout for
// ErrTurnTimeout (it wins, whatever the call it cut reported), the model and
// its pull command for a model that is not installed (MissingModelNotice),
// what the model server said for a refused key, a 429, an answer that is
// not its API or refused images (ServerNotice), Unavailable for
// llm.ErrUnavailable, else Other.
func (t FailureTexts) Text(err error) string {
	if errors.Is(err, ErrTurnTimeout) {
		return t.Timeout
	}
	if notice, ok := MissingModelNotice(err); ok {
		return notice
	}
	if notice, ok := ServerNotice(err); ok {
		return notice
	}
	if errors.Is(err, llm.ErrUnavailable) {
		return t.Unavailable
	}
	return t.Other(err)
}
