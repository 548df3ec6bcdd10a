// Package forecast holds weather_forecast, the tool that gives the chat
// model JMA's forecast for a place: a weather question the router sent to
// the chat handler (it sends what it is unsure of there) still gets an
// answer from the forecast, not from the model's memory.
package forecast

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/weather"
)

// Name is the tool's name.
const Name = "weather_forecast"

// Forecaster gives the forecast of a place; *weather.Client satisfies it.
type Forecaster interface {
	PlaceForecast(ctx context.Context, p weather.Place) (*weather.Forecast, error)
}

var _ Forecaster = (*weather.Client)(nil)

type args struct {
	Place string `json:"place,omitempty" jsonschema_description:"a place in Japan in Japanese or English (大阪, 札幌, 沖縄, Osaka); empty for this bot's home area"`
}

// Tool returns weather_forecast over f. A place it does not know gets the
// forecast of defaultOffice (WEATHER_AREA_CODE), and the result says so;
// now is the clock (nil: time.Now).
func Tool(f Forecaster, defaultOffice string, now func() time.Time) tools.Tool {
	if now == nil {
		now = time.Now
	}
	return tools.MustNew(Name,
		"The Japan Meteorological Agency (JMA) forecast for a place in Japan: weather, chance of rain per six hours, "+
			"temperatures, wind and a laundry index for today, tomorrow and the day after, and JMA's overview. Use it for "+
			"questions about the weather, rain, umbrellas, temperature or laundry (天気, 雨, 傘, 気温, 洗濯); answer from "+
			"it, never from memory, and keep its numbers.",
		func(ctx context.Context, a args) (string, error) {
			asked := strings.TrimSpace(a.Place)
			p, ok := weather.FindPlace(asked)
			if !ok {
				p = weather.OfficePlace(defaultOffice)
			}
			fc, err := f.PlaceForecast(ctx, p)
			if err != nil {
				return "", fmt.Errorf("forecast for %s (%s): %w; JMA cannot be read now: say so and give no numbers", p.Label(), p.Office, err)
			}
			facts := weather.Facts(fc, now())
			if !ok && asked != "" {
				return fmt.Sprintf("「%s」は気象庁の予報区から特定できませんでした。代わりに既定の地域（%s）の予報です。"+
					"%sの予報であることをユーザーに伝えてから答えてください。\n\n%s", asked, p.Label(), p.Label(), facts), nil
			}
			return facts, nil
		})
}
