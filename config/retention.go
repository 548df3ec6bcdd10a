package config

import (
	"strconv"
	"strings"
	"time"
)

// minRetention is the shortest MESSAGE_RETENTION: a day. Only archived
// (summarised) messages are ever deleted, but history younger than that
// is too useful to drop by a typo.
const minRetention = 24 * time.Hour

// retention reads MESSAGE_RETENTION: "off" (the default; also "0" or
// unset) keeps archived messages for ever; else how long they are kept, in
// days ("365d"), years ("2y") or a Go duration of at least a day.
func (p *parser) retention(name string) time.Duration {
	v := strings.ToLower(p.value(name, "off"))
	if v == "off" || v == "0" {
		return 0
	}
	var d time.Duration
	var err error
	switch {
	case strings.HasSuffix(v, "d"), strings.HasSuffix(v, "y"):
		unit := 24 * time.Hour
		if strings.HasSuffix(v, "y") {
			unit = 365 * 24 * time.Hour
		}
		var n int
		n, err = strconv.Atoi(v[:len(v)-1])
		if n > 1000*365 {
			n = -1
		}
		d = time.Duration(n) * unit
	default:
		d, err = time.ParseDuration(v)
	}
	if err != nil || d < minRetention {
		p.fail(name, "must be off or a duration of at least a day such as 90d, 2y or 720h, got %q", v)
		return 0
	}
	return d
}
