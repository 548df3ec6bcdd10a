package commands

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// since: is read as people write it; what cannot be read is answered with
// the reason and examples.
func TestParseSince(t *testing.T) {
	jst := time.FixedZone("JST", 9*3600)
	now := time.Date(2026, 12, 7, 14, 30, 0, 0, jst)
	midnight := time.Date(2026, 12, 7, 0, 0, 0, 0, jst)
	link := "https://discord.com/channels/900/500/" + idFor(now.Add(-90*time.Minute))
	tests := []struct {
		in         string
		since      time.Time
		until      time.Time
		channel    string
		problemHas string
	}{
		{"30m", now.Add(-30 * time.Minute), time.Time{}, "", ""},
		{"2h", now.Add(-2 * time.Hour), time.Time{}, "", ""},
		{"24h", now.Add(-24 * time.Hour), time.Time{}, "", ""},
		{"7d", now.Add(-7 * 24 * time.Hour), time.Time{}, "", ""},
		{"２時間", now.Add(-2 * time.Hour), time.Time{}, "", ""},
		{"90分", now.Add(-90 * time.Minute), time.Time{}, "", ""},
		{"3日", now.Add(-3 * 24 * time.Hour), time.Time{}, "", ""},
		{"today", midnight, time.Time{}, "", ""},
		{"今日", midnight, time.Time{}, "", ""},
		{"yesterday", midnight.AddDate(0, 0, -1), midnight, "", ""},
		{"昨日", midnight.AddDate(0, 0, -1), midnight, "", ""},
		{link, now.Add(-90 * time.Minute), time.Time{}, "500", ""},
		{"<" + link + ">", now.Add(-90 * time.Minute), time.Time{}, "500", ""},
		{"先週くらい", time.Time{}, time.Time{}, "", "「先週くらい」は期間として読めませんでした。"},
		{"0h", time.Time{}, time.Time{}, "", "期間は1分から31日までです。"},
		{"400d", time.Time{}, time.Time{}, "", "期間は1分から31日までです。"},
		{"https://discord.com/channels/900/500/12", time.Time{}, time.Time{}, "", "リンクのメッセージIDが正しくありません。"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			p, problem := parseSince(tc.in, now, jst)
			if tc.problemHas != "" {
				if !strings.Contains(problem, tc.problemHas) || !strings.Contains(problem, "30m（30分）") {
					t.Errorf("problem = %q, want it to say %q and give examples", problem, tc.problemHas)
				}
				return
			}
			if problem != "" || !p.since.Equal(tc.since) || !p.until.Equal(tc.until) || p.channelID != tc.channel {
				t.Errorf("period = %+v, %q; want since %v until %v channel %q", p, problem, tc.since, tc.until, tc.channel)
			}
		})
	}
}

func idFor(t time.Time) string {
	return strconv.FormatUint(uint64(t.UnixMilli()-discordEpoch)<<22, 10)
}

// fakeSummarizer answers with its text and records the period asked.
type fakeSummarizer struct {
	text       string
	summarised bool
	channel    string
	since      time.Time
}

func (f *fakeSummarizer) Summarize(_ context.Context, _, channelID string, since, _ time.Time, progress func(done, total int)) (string, bool, error) {
	f.channel, f.since = channelID, since
	progress(1, 2)
	return f.text, f.summarised, nil
}

// fakeReaders lets users read the channels listed for them.
type fakeReaders map[string][]string

func (f fakeReaders) MayRead(_ context.Context, _, userID, channelID string) (bool, error) {
	return slices.Contains(f[userID], channelID), nil
}

// A summary is public; what is no summary only its user sees; a channel
// the user may not read, and a link to another server's message, are
// refused; progress reaches the adapter.
func TestSummaryReplies(t *testing.T) {
	now := time.Date(2026, 12, 7, 14, 30, 0, 0, time.UTC)
	f := &fakeSummarizer{text: "**要約**", summarised: true}
	c := Summary(SummaryOptions{Summarizer: f, Readers: fakeReaders{"u1": {"501"}}, Now: func() time.Time { return now }})
	var shown []string
	req := Request{UserID: "u1", GuildID: "900", ChannelID: "500", Options: map[string]any{"channel": "501"}, Progress: func(s string) { shown = append(shown, s) }}
	if r := c.Run(context.Background(), req); !r.Public || r.Text != "**要約**" || f.channel != "501" || !f.since.Equal(now.Add(-24*time.Hour)) {
		t.Errorf("reply %+v for channel %s since %v", r, f.channel, f.since)
	}
	if len(shown) != 2 || shown[1] != "要約中… 1/2" {
		t.Errorf("progress shown: %q", shown)
	}
	other := req
	other.UserID = "u2"
	f.channel = ""
	if r := c.Run(context.Background(), other); r.Public || !strings.Contains(r.Text, "<#501> はあなたが読める") || f.channel != "" {
		t.Errorf("a channel the user may not read: %+v, summarised %q", r, f.channel)
	}
	f.summarised = false
	if r := c.Run(context.Background(), req); r.Public {
		t.Errorf("an answer that is no summary went public: %+v", r)
	}
	req.Options = map[string]any{"since": "https://discord.com/channels/1/2/" + idFor(now.Add(-time.Hour))}
	if r := c.Run(context.Background(), req); r.Public || !strings.Contains(r.Text, "このサーバーのものではありません") {
		t.Errorf("a link to another server: %+v", r)
	}
}
