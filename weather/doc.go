// Package weather reads the Japan Meteorological Agency's forecast JSON
// (bosai/forecast/data/forecast/{office}.json and its overview), turns it
// into a small model with missing values kept as missing, computes a laundry
// index (洗濯指数) from what JMA provides, and formats the daily post. Its
// table of JMA's forecast offices (areas.go) tells which office's forecast a
// question means: 「大阪の天気」 is 270000's, "weather in Sapporo" 016000's.
//
// JMA documents neither endpoint; the shape follows real responses (every
// value a string, "" meaning missing, past rain-chance blocks dropped, the
// layout depending on the 05:00, 11:00 or 17:00 report cycle). Days are
// matched by their JST date, never by array position.
package weather
