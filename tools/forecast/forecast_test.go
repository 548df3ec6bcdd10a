package forecast_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/forecast"
	"github.com/yorozu-bot/yorozu/weather"
)

// jma serves Tokyo's and Osaka's forecasts as JMA does; down answers 502.
func jma(t *testing.T, down *atomic.Bool) *weather.Client {
	t.Helper()
	fixtures := map[string]string{
		"forecast/130000.json":          "forecast_130000_05.json",
		"forecast/270000.json":          "forecast_270000_2023012811.json",
		"overview_forecast/270000.json": "overview_270000.json",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		name, ok := fixtures[strings.TrimPrefix(r.URL.Path, "/forecast/data/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, "../../weather/testdata/"+name)
	}))
	t.Cleanup(srv.Close)
	return weather.NewClient(weather.ClientOptions{BaseURL: srv.URL, HTTPClient: srv.Client(), Now: now})
}

func now() time.Time { return time.Date(2023, 1, 28, 12, 0, 0, 0, weather.JST) }

func TestWeatherForecastAnswersForThePlace(t *testing.T) {
	var down atomic.Bool
	reg := tools.NewRegistry()
	reg.MustRegister(forecast.Tool(jma(t, &down), "130000", now))
	for _, tc := range []struct {
		name, args string
		wants      []string
		unwanted   []string
		down       bool
		err        string
	}{
		{"Japanese name", `{"place":"大阪"}`, []string{"気象庁の天気予報（大阪府、1月28日11時発表）", "■ 1月29日(日)\n天気：晴れ", "出典：気象庁"}, []string{"東京", "特定できません"}, false, ""},
		{"city in a longer phrase", `{"place":"大阪市北区"}`, []string{"（大阪府、"}, nil, false, ""},
		{"English name", `{"place":"Osaka"}`, []string{"（大阪府、"}, []string{"特定できません"}, false, ""},
		{"no place: the home area", `{}`, []string{"気象庁の天気予報（東京地方"}, []string{"特定できません"}, false, ""},
		{"unknown place: the home area, said so", `{"place":"アトランティス"}`,
			[]string{"「アトランティス」は気象庁の予報区から特定できませんでした。代わりに既定の地域（東京都）の予報です。", "気象庁の天気予報（東京地方"}, nil, false, ""},
		{"JMA down", `{"place":"札幌"}`, nil, nil, true, "forecast for 石狩・空知・後志地方 (016000)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			down.Store(tc.down)
			got, err := reg.Call(context.Background(), forecast.Name, json.RawMessage(tc.args))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Call = %q, %v; want an error naming %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.wants {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.unwanted {
				if strings.Contains(got, w) {
					t.Errorf("result holds %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestWeatherForecastInAChatTurn: a model offered the tool calls it with a
// place and answers from what comes back; the place is optional.
func TestWeatherForecastInAChatTurn(t *testing.T) {
	var down atomic.Bool
	reg := tools.NewRegistry()
	reg.MustRegister(forecast.Tool(jma(t, &down), "130000", now))
	defs, _ := json.Marshal(reg.Definitions())
	if !strings.Contains(string(defs), `"name":"weather_forecast"`) || strings.Contains(string(defs), `"required"`) {
		t.Errorf("definition %s: want weather_forecast with place optional", defs)
	}

	srv := ollamatest.New(t)
	srv.AddModel("qwen3:4b", "completion", "tools")
	srv.Script(ollamatest.ToolCalls(ollamatest.Call(forecast.Name, map[string]any{"place": "大阪"})), ollamatest.Text("明日の大阪は晴れ、傘はいりません。"))
	res, err := llm.New(llm.Options{Client: srv.Client()}).Run(context.Background(), llm.Request{Model: "qwen3:4b", Tools: reg,
		Messages: []api.Message{{Role: "user", Content: "明日大阪行くけど傘いるかな"}}}, func(llm.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "明日の大阪は晴れ、傘はいりません。" {
		t.Errorf("answer %q", res.Content)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	back := reqs[1].Messages[len(reqs[1].Messages)-1]
	if back.Role != "tool" || !strings.Contains(back.Content, "気象庁の天気予報（大阪府") {
		t.Errorf("the model got back %+v, want Osaka's forecast", back)
	}
}
