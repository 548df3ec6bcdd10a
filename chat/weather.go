package chat

import (
	"context"
	"fmt"
	"log/slog"
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
	if err := w.Chat.with(system).Handle(ctx, req, emit); err != nil || f == nil {
		return err
	}
	// The chart follows the answer; without it the answer still stands.
	png, ok, err := weather.Chart(f, now())
	if err != nil || !ok {
		logger.Warn("weather chart not drawn", "office", place.Office, "err", err)
		return nil
	}
	return emit(llm.File{Name: weather.ChartFilename, ContentType: "image/png", Data: png})
}
