// Package disaster reads the Japan Meteorological Agency's public disaster
// JSON — the earthquake list (bosai/quake/data/list.json), the tsunami list
// and its reports (bosai/tsunami/data/), and the weather warnings of an
// office (bosai/warning/data/warning/{office}.json) — into small models, and
// writes the Discord posts about them.
//
// JMA documents none of these; the shapes follow real answers. One
// earthquake (eid) appears once per report (震度速報, 震源に関する情報,
// 震源・震度情報), each carrying part of what is known, so an earthquake is
// built from all its reports. Values are strings where "" means unknown,
// and "ser" is a string or a number. An entry that does not read is
// skipped and named, never the whole list. This is not an early-warning
// channel: 緊急地震速報 is not in these lists.
package disaster
