package chat

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/weather"
)

// Forecaster gives the forecast of a place; *weather.Client satisfies it.
type Forecaster interface {
	PlaceForecast(ctx context.Context, p weather.Place) (*weather.Forecast, error)
}

const weatherSystem = "ユーザーは天気や洗濯について聞いています。次の気象庁の予報（事実）だけを根拠に、" +
	"短く分かりやすく答えてください。予報にないことは推測だと明言し、数値は変えないこと。" +
	"必要なら最後に「出典：気象庁」と添えてください。\n\n"

const weatherUnavailable = "ユーザーは天気や洗濯について聞いていますが、いま気象庁の予報を取得できませんでした。" +
	"そのことを正直に伝え、予報の数値を作らないでください。"

// Weather answers weather and laundry questions: the forecast of the place
// asked (「大阪の天気は？」), or of the configured office when none is named,
// goes in as a system message, then the chat pipeline answers as usual
// (memory context, recording).
type Weather struct {
	Chat      *Conversation // required; its System text is kept and extended
	Forecasts Forecaster    // required
	Office    string        // WEATHER_AREA_CODE: the place when none is asked
	Now       func() time.Time
	Logger    *slog.Logger

	chartMu sync.Mutex
	charts  map[*weather.Forecast]drawnChart
}

const placeUnknownNote = "ユーザーが尋ねた「%s」は気象庁の予報区から特定できなかったため、代わりに既定の地域（%s）の予報を渡しています。" +
	"答えの最初に、%sの予報で答えることをはっきり伝えてください。"

// Handle answers req with the forecast in the context.
func (w *Weather) Handle(ctx context.Context, req Request, emit func(llm.Event) error) error {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	logger := w.Logger
	if logger == nil {
		logger = slog.Default()
	}
	place, unknown := weather.PlaceFor(req.Text, w.Office)
	var note string
	if unknown != "" {
		note = fmt.Sprintf(placeUnknownNote, unknown, place.Label(), place.Label())
	}
	system := weatherUnavailable
	f, err := w.Forecasts.PlaceForecast(ctx, place)
	if err != nil {
		logger.Warn("forecast for a weather question", "office", place.Office, "area", place.Area, "err", err)
	} else {
		system = weatherSystem + weather.Facts(f, now())
	}
	if note != "" {
		system = note + "\n\n" + system
	}
	if f == nil {
		return w.Chat.with(system).Handle(ctx, req, emit)
	}
	// The chart is drawn while the model answers (from its first word, so
	// that drawing does not delay the question on its way to the model),
	// and goes out with the answer when it is ready by then (one
	// message), else right after it.
	answering := make(chan struct{})
	chart := w.chart(f, now(), answering, func(err error) {
		logger.Warn("weather chart not drawn", "office", place.Office, "err", err)
	})
	sent, started := false, false
	withChart := func(ev llm.Event) error {
		if !started {
			started = true
			close(answering)
		}
		if _, done := ev.(llm.Done); done && !sent {
			select {
			case file, ok := <-chart:
				sent = true
				if ok {
					if err := emit(file); err != nil {
						return err
					}
				}
			default:
			}
		}
		return emit(ev)
	}
	err = w.Chat.with(system).Handle(ctx, req, withChart)
	if !started {
		close(answering)
	}
	if err != nil || sent {
		return err
	}
	// Without the chart the answer still stands.
	if file, ok := <-chart; ok {
		return emit(file)
	}
	return nil
}

// chart draws f's chart as of now in the background once start is closed:
// the channel gives the file, or closes without one when there is none
// (failed is told why when drawing failed). A forecast's chart is drawn
// once a day and kept while the forecast is the one in use.
func (w *Weather) chart(f *weather.Forecast, now time.Time, start <-chan struct{}, failed func(error)) <-chan llm.File {
	out := make(chan llm.File, 1)
	day := now.Format(time.DateOnly)
	w.chartMu.Lock()
	c, ok := w.charts[f]
	w.chartMu.Unlock()
	if ok && c.day == day {
		out <- llm.File{Name: weather.ChartFilename, ContentType: "image/png", Data: c.png}
		close(out)
		return out
	}
	go func() {
		defer close(out)
		<-start
		png, ok, err := weather.Chart(f, now)
		if err != nil || !ok {
			if err != nil {
				failed(err)
			}
			return
		}
		w.chartMu.Lock()
		if len(w.charts) >= maxCharts {
			clear(w.charts) // forecasts replaced by newer ones
		}
		if w.charts == nil {
			w.charts = map[*weather.Forecast]drawnChart{}
		}
		w.charts[f] = drawnChart{day: day, png: png}
		w.chartMu.Unlock()
		out <- llm.File{Name: weather.ChartFilename, ContentType: "image/png", Data: png}
	}()
	return out
}

// maxCharts bounds the charts kept: one a place asked about lately.
const maxCharts = 32

// drawnChart is a forecast's chart, drawn on day (YYYY-MM-DD).
type drawnChart struct {
	day string
	png []byte
}
