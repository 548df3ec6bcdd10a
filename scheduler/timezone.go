package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// ErrUnknownTimeZone is why SetTimeZone refuses a name; the error wraps it
// with the name and the reason.
var ErrUnknownTimeZone = errors.New("unknown time zone")

// LocationFor is the time zone userID reads times in: their own
// (/timezone set), else Location. A zone that cannot be read, or a lookup
// that fails, is logged and gives Location too, so a reminder is never
// held up by it.
func (r *Reminders) LocationFor(ctx context.Context, userID string) *time.Location {
	name, err := db.UserTimeZone(ctx, r.s.pool, userID)
	if err != nil {
		r.s.log.Warn("user time zone: lookup failed, using TIMEZONE", "user_id", userID, "err", err)
		return r.Location()
	}
	if name == "" {
		return r.Location()
	}
	loc, err := loadZone(name)
	if err != nil {
		// The name was checked when stored; the zone database the binary
		// runs with may no longer have it.
		r.s.log.Warn("user time zone: cannot load, using TIMEZONE", "user_id", userID, "time_zone", name, "err", err)
		return r.Location()
	}
	return loc
}

// TimeZone is the time zone name userID chose, with set false (and name
// "") when they chose none and Location applies.
func (r *Reminders) TimeZone(ctx context.Context, userID string) (name string, set bool, err error) {
	name, err = db.UserTimeZone(ctx, r.s.pool, userID)
	if err != nil {
		return "", false, err
	}
	return name, name != "", nil
}

// SetTimeZone makes name (an IANA name such as "Asia/Tokyo") userID's time
// zone; "" clears it, so Location applies again. A name time.LoadLocation
// cannot load, and "Local" (this machine's clock, not a place), are refused
// with an error wrapping ErrUnknownTimeZone.
func (r *Reminders) SetTimeZone(ctx context.Context, userID, name string) error {
	if name != "" {
		if _, err := loadZone(name); err != nil {
			return fmt.Errorf("set time zone of user %s: %w", userID, err)
		}
	}
	return db.SetUserTimeZone(ctx, r.s.pool, userID, name)
}

// loadZone is time.LoadLocation for a user's zone: "" (which LoadLocation
// reads as UTC) and "Local" are not names of a place.
func loadZone(name string) (*time.Location, error) {
	switch name {
	case "":
		return nil, fmt.Errorf("%w: no name", ErrUnknownTimeZone)
	case "Local":
		return nil, fmt.Errorf("%w %q: the machine's own zone, not a place", ErrUnknownTimeZone, name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrUnknownTimeZone, name, err)
	}
	return loc, nil
}
