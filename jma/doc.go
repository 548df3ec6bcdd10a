// Package jma holds what is the Japan Meteorological Agency's own: the
// client that reads its JSON API (the bosai pages' data; deadlines, a size
// cap, conditional requests, its area names), which the forecast (weather)
// and the disaster information (disaster) both read through, and its tables
// of prefectures and of the seismic intensity scale, which config reads the
// QUAKE_* settings with. What the forecasts and reports mean lives with
// weather and disaster.
package jma
