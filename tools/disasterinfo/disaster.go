// Package disasterinfo holds disaster_info, the tool that answers 「さっきの地震は？」
// and 「津波は大丈夫？」 from what the disaster poll stored: JMA's earthquakes,
// tsunami and weather warnings, with their report times, and whether JMA
// can be read right now. It is the same in every space.
package disasterinfo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/tools"
)

// Name is the tool's name.
const Name = "disaster_info"

// shown bounds the events one answer lists.
const shown = 5

type args struct {
	Kind  string `json:"kind,omitempty" jsonschema:"enum=quake,enum=tsunami,enum=warning,enum=all" jsonschema_description:"quake (地震), tsunami (津波), warning (気象警報) or all; default all"`
	Hours int    `json:"hours,omitempty" jsonschema_description:"how far back to look, in hours (1-168); default 24"`
}

var kindNames = map[string]string{db.DisasterQuake: "地震", db.DisasterTsunami: "津波", db.DisasterWarning: "気象警報"}

// Tool returns disaster_info over q; times are shown in loc and now is the
// clock (nil: time.Now).
func Tool(q db.Querier, loc *time.Location, now func() time.Time) tools.Tool {
	if loc == nil {
		loc = time.Local
	}
	if now == nil {
		now = time.Now
	}
	return tools.MustNew(Name,
		"Recent earthquakes, tsunami warnings and weather warnings in Japan as the Japan Meteorological Agency (JMA) "+
			"reported them and this bot stored them, newest first, with each report's time; also says when JMA cannot be "+
			"reached. Use it for questions such as さっきの地震は？ or 津波は大丈夫？; answer from it, never from memory.",
		func(ctx context.Context, a args) (string, error) {
			kind := a.Kind
			if kind == "all" {
				kind = ""
			}
			hours := a.Hours
			if hours <= 0 {
				hours = 24
			}
			hours = min(hours, 168)
			t := now()
			events, err := db.RecentDisasterEvents(ctx, q, kind, t.Add(-time.Duration(hours)*time.Hour), shown)
			if err != nil {
				return "", err
			}
			polls, err := db.DisasterPolls(ctx, q)
			if err != nil {
				return "", err
			}
			var b strings.Builder
			what := "地震・津波・気象警報"
			if kind != "" {
				what = kindNames[kind]
			}
			if len(events) == 0 {
				fmt.Fprintf(&b, "直近%d時間に記録された%sの情報はありません。\n", hours, what)
			} else {
				fmt.Fprintf(&b, "気象庁の発表のうち、直近%d時間に記録された%sの情報（新しい順）:\n", hours, what)
			}
			for _, e := range events {
				at := ""
				if e.ReportedAt != nil {
					at = e.ReportedAt.In(loc).Format("1月2日 15:04") + "発表"
				}
				state := ""
				if !e.Active {
					state = "（解除・取消済み）"
				}
				fmt.Fprintf(&b, "\n■ [%s] %s%s（%s）\n%s\n", kindNames[e.Kind], e.Title, state, at, stripMention(e.Content))
			}
			b.WriteString("\n" + pollStatus(polls, loc))
			return strings.TrimSpace(b.String()), nil
		})
}

// pollStatus says when JMA was last read, and whether it is unreachable.
func pollStatus(polls []db.DisasterPoll, loc *time.Location) string {
	if len(polls) == 0 {
		return "（まだ気象庁の情報を取得していません。最新の状況は気象庁の発表を確認するよう伝えてください）"
	}
	var last *time.Time
	var failing []string
	for _, p := range polls {
		if p.OKAt != nil && (last == nil || p.OKAt.After(*last)) {
			last = p.OKAt
		}
		if p.Failing() {
			failing = append(failing, kindNames[p.Source])
		}
	}
	if len(failing) > 0 {
		s := "⚠️ いま気象庁の情報を取得できていません（" + strings.Join(failing, "・") + "）。"
		if last != nil {
			s += "最後に取得できたのは " + last.In(loc).Format("1月2日 15:04") + " です。"
		}
		return s + "これより新しい情報は分からないので、推測せず、気象庁やテレビ・ラジオで確認するよう伝えてください。"
	}
	return "（気象庁の情報は " + last.In(loc).Format("1月2日 15:04") + " に確認済み。出典：気象庁）"
}

// stripMention drops the role ping a post starts with.
func stripMention(s string) string {
	if strings.HasPrefix(s, "@everyone ") {
		return strings.TrimPrefix(s, "@everyone ")
	}
	if strings.HasPrefix(s, "<@&") {
		if i := strings.Index(s, "> "); i > 0 {
			return s[i+2:]
		}
	}
	return s
}
