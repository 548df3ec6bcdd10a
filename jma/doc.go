// Package jma reads the Japan Meteorological Agency's JSON API (the
// bosai pages' data): one client, with deadlines, a size cap and
// conditional requests, that the forecast (weather) and the disaster
// information (disaster) both read through. What the data means lives with
// them.
package jma
