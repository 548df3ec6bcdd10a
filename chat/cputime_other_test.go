//go:build !unix

package chat

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
