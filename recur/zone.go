package recur

import (
	"sync"
	"time"
)

// zones caches the zones loaded by name: time.LoadLocation reads and
// parses a file on every call, and every stored rule names its zone.
var zones sync.Map // name → *time.Location

// LoadLocation is time.LoadLocation, remembering what it loaded.
func LoadLocation(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}
