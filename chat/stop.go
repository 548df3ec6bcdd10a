package chat

import (
	"context"
	"errors"
	"strings"
)

// ErrStopped is the cause a turn's context is cancelled with when a person
// stops it (停止 on the admin page or on Discord). A stopped turn is not a
// failure: what was written is kept, marked with StoppedMark.
var ErrStopped = errors.New("stopped by the user")

// StoppedMark ends the stored text of a stopped answer, so the page, an
// export and the model reading the history all see that it was cut.
const StoppedMark = "(停止しました)"

// Stopped reports whether ctx was cancelled by a person stopping the turn.
func Stopped(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrStopped)
}

// MarkStopped is the text kept of an answer stopped after content.
func MarkStopped(content string) string {
	content = strings.TrimRight(content, " \n")
	if strings.HasSuffix(content, StoppedMark) {
		return content
	}
	if content == "" {
		return StoppedMark
	}
	return content + "\n\n" + StoppedMark
}
