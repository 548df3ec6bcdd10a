package chat

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/forecast"
	"github.com/yorozu-bot/yorozu/weather"
)

func systemText(req api.ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		if m.Role == "system" {
			b.WriteString(m.Content + "\n")
		}
	}
	return b.String()
}

// jmaServer serves Tokyo's and Osaka's forecasts as JMA does; any other
// office is not found.
func jmaServer(t *testing.T, up bool) *httptest.Server {
	fixtures := map[string]string{
		"forecast/130000.json":          "forecast_130000_05.json",
		"forecast/270000.json":          "forecast_270000_2023012811.json",
		"overview_forecast/270000.json": "overview_270000.json",
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /forecast/data/{kind}/{file}", func(w http.ResponseWriter, r *http.Request) {
		if !up {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		name, ok := fixtures[r.PathValue("kind")+"/"+r.PathValue("file")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, "../weather/testdata/"+name)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestWeatherHandlerAnswersWithForecast(t *testing.T) {
	for _, tc := range []struct {
		name  string
		up    bool
		wants []string
	}{
		{"forecast in the context", true, []string{"気象庁の天気予報", "洗濯指数：80（よく乾く）", "6月11日(水)", "出典：気象庁"}},
		{"JMA down", false, []string{"取得できませんでした"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, srv, _ := newConversation(t)
			c.System = "既存の指示"
			jma := jmaServer(t, tc.up)
			now := func() time.Time { return time.Date(2025, 6, 10, 7, 0, 0, 0, weather.JST) }
			h := &Weather{Chat: c, Office: "130000", Now: now,
				Forecasts: weather.NewClient(weather.ClientOptions{BaseURL: jma.URL, HTTPClient: jma.Client(), Now: now})}
			srv.Script(ollamatest.Text("今日は晴れて洗濯日和です。"))
			var text strings.Builder
			err := h.Handle(context.Background(), Request{Session: "discord:channel:1", Source: "discord", ChannelID: "1",
				Text: "今日は洗濯物乾く？"}, func(e llm.Event) error {
				if e, ok := e.(llm.Text); ok {
					text.WriteString(e.Text)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if text.String() != "今日は晴れて洗濯日和です。" {
				t.Errorf("answer %q", text.String())
			}
			sys := systemText(srv.Requests()[0])
			for _, w := range append(tc.wants, "既存の指示") {
				if !strings.Contains(sys, w) {
					t.Errorf("system messages lack %q:\n%s", w, sys)
				}
			}
			if c.System != "既存の指示" {
				t.Error("the wrapped conversation was changed")
			}
		})
	}
}

// TestWeatherHandlerAnswersForThePlaceAsked: 「大阪の明日の天気は？」 is
// answered from Osaka's forecast, with Osaka's chart; a place JMA does not
// know gets the default area's forecast and the model is told to say so.
func TestWeatherHandlerAnswersForThePlaceAsked(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		wants      []string
		unwanted   []string
	}{
		{"Osaka", "大阪の明日の天気は？",
			[]string{"気象庁の天気予報（大阪府、1月28日11時発表）", "■ 1月29日(日)\n天気：晴れ", "降水確率：00-06時 10%", "２９日の大阪府は"},
			[]string{"東京地方", "特定できなかった"}},
		{"Osaka in English", "What's the weather in Osaka tomorrow?",
			[]string{"気象庁の天気予報（大阪府"}, []string{"東京地方", "特定できなかった"}},
		{"unknown place", "アトランティスの天気は？",
			[]string{"「アトランティス」は気象庁の予報区から特定できなかった", "既定の地域（東京都）", "気象庁の天気予報（東京地方"},
			[]string{"大阪府"}},
		{"no place named", "明日の天気は？",
			[]string{"気象庁の天気予報（東京地方"}, []string{"特定できなかった"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, srv, _ := newConversation(t)
			jma := jmaServer(t, true)
			now := func() time.Time { return time.Date(2023, 1, 28, 12, 0, 0, 0, weather.JST) }
			h := &Weather{Chat: c, Office: "130000", Now: now,
				Forecasts: weather.NewClient(weather.ClientOptions{BaseURL: jma.URL, HTTPClient: jma.Client(), Now: now})}
			srv.Script(ollamatest.Text("明日は晴れます。"))
			var charts int
			err := h.Handle(context.Background(), Request{Session: "discord:channel:1", Source: "discord", ChannelID: "1",
				Text: tc.text}, func(e llm.Event) error {
				if f, ok := e.(llm.File); ok && f.Name == weather.ChartFilename {
					charts++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sys := systemText(srv.Requests()[0])
			for _, w := range tc.wants {
				if !strings.Contains(sys, w) {
					t.Errorf("system messages lack %q:\n%s", w, sys)
				}
			}
			for _, w := range tc.unwanted {
				if strings.Contains(sys, w) {
					t.Errorf("system messages hold %q:\n%s", w, sys)
				}
			}
			if charts != 1 {
				t.Errorf("%d charts, want the forecast's", charts)
			}
		})
	}
}

// TestChatHandlerReachesTheForecast: a weather question the router left
// to the chat handler is still answered from JMA's forecast, through the
// weather_forecast tool, for the place asked.
func TestChatHandlerReachesTheForecast(t *testing.T) {
	c, srv, _ := newConversation(t)
	jma := jmaServer(t, true)
	now := func() time.Time { return time.Date(2023, 1, 28, 12, 0, 0, 0, weather.JST) }
	c.Tools.(*tools.Registry).MustRegister(forecast.Tool(
		weather.NewClient(weather.ClientOptions{BaseURL: jma.URL, HTTPClient: jma.Client(), Now: now}), "130000", now))
	srv.Script(ollamatest.ToolCalls(ollamatest.Call(forecast.Name, map[string]any{"place": "大阪"})),
		ollamatest.Text("明日の大阪は晴れの予報です。傘はいらないでしょう。"))
	var text strings.Builder
	err := c.Handle(context.Background(), Request{Session: "discord:channel:1", Source: "discord", ChannelID: "1",
		Text: "明日大阪に行くんだけど傘いるかな"}, func(e llm.Event) error {
		if e, ok := e.(llm.Text); ok {
			text.WriteString(e.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "明日の大阪は晴れの予報です。傘はいらないでしょう。" {
		t.Errorf("answer %q", text.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want the question and the tool's answer", len(reqs))
	}
	if got := strings.Join(toolResults(reqs[1]), "\n"); !strings.Contains(got, "気象庁の天気予報（大阪府") ||
		!strings.Contains(got, "■ 1月29日(日)\n天気：晴れ") {
		t.Errorf("tool results %q, want Osaka's forecast", got)
	}
}

type fakeTips struct {
	mu     sync.Mutex
	topics []string
	off    bool // no tips channel set
}

func (f *fakeTips) Enabled() bool { return !f.off }

func (f *fakeTips) Post(_ context.Context, topic string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.topics = append(f.topics, topic)
	return "💡 どうでもいいTips：" + topic, nil
}

type fixedRelated string

func (f fixedRelated) RelatedTopic(context.Context, memory.Space, string) (string, error) {
	return string(f), nil
}

var (
	_ TipPoster   = (*fakeTips)(nil)
	_ TopicFinder = fixedRelated("")
)

func TestSmalltalkAnswersThenPostsRelatedTip(t *testing.T) {
	c, srv, _ := newConversation(t)
	tips := &fakeTips{}
	h := &Smalltalk{Chat: c, Tips: tips, Topics: fixedRelated("猫")}
	srv.Script(ollamatest.Text("暇なら猫でも眺めよう。Tipsチャンネルに猫のTipsを投稿しておくね。"))
	var answered bool
	err := h.Handle(context.Background(), Request{Session: "discord:channel:1", Source: "discord", ChannelID: "1",
		Text: "暇だなあ、猫と遊びたい"}, func(e llm.Event) error {
		if _, ok := e.(llm.Text); ok {
			tips.mu.Lock()
			if len(tips.topics) > 0 {
				t.Error("the tip was posted before the answer")
			}
			tips.mu.Unlock()
			answered = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !answered {
		t.Fatal("no answer")
	}
	if len(tips.topics) != 1 || tips.topics[0] != "猫" {
		t.Fatalf("tips posted on %q, want one on 猫", tips.topics)
	}
	if sys := systemText(srv.Requests()[0]); !strings.Contains(sys, "雑談") || !strings.Contains(sys, "「猫」") {
		t.Errorf("system text %q", sys)
	}
}

func TestSmalltalkWithoutTipsChannelPromisesNoTip(t *testing.T) {
	c, srv, _ := newConversation(t)
	tips := &fakeTips{off: true}
	h := &Smalltalk{Chat: c, Tips: tips, Topics: fixedRelated("猫")}
	srv.Script(ollamatest.Text("暇なら猫でも眺めよう。"))
	err := h.Handle(context.Background(), Request{Session: "discord:channel:1", Source: "discord", ChannelID: "1",
		Text: "暇だなあ"}, func(llm.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(tips.topics) != 0 {
		t.Errorf("tips posted on %q with no tips channel set", tips.topics)
	}
	if sys := systemText(srv.Requests()[0]); strings.Contains(sys, "Tipsチャンネル") {
		t.Errorf("the system text promises a tip no one will post: %q", sys)
	}
}
