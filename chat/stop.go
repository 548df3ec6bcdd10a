package chat

import (
	"context"
	"errors"
)

// ErrStopped is the cause a turn's context is cancelled with when a person
// stops it (停止 on the admin page or on Discord). A stopped turn is not a
// failure: what was written is kept as it was, and the answer is recorded
// as stopped (db.Activity.Stopped).
var ErrStopped = errors.New("stopped by the user")

// StoppedMark is what the adapters show after a stopped answer: on Discord
// at the end of the message, on the admin page under the answer. It is never
// part of the answer's stored text, so a copy or an export holds only what
// the model wrote.
const StoppedMark = "（停止しました）"

// Stopped reports whether ctx was cancelled by a person stopping the turn.
func Stopped(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrStopped)
}
