package tools

import "context"

// Caller says on whose behalf a tool runs: the adapter that received the
// request puts it into the context, and tools such as reminders read it.
type Caller struct {
	Session   string // conversation key, e.g. "discord:<channel id>"
	Source    string // adapter, e.g. "discord" or "web"
	GuildID   string
	ChannelID string
	UserID    string
	UserName  string // the user's display name, for records such as note revisions
	// Space is whose memory the turn may reach ("guild:<id>", "dm:<user
	// id>", "web"); empty means the default space.
	Space     string
	MessageID string // message that started the turn
	// Text is the user's message, so a tool can check the model's reading
	// of it (a reminder's time against the words the user wrote).
	Text           string
	ManageChannels bool // the user may manage this channel (a scheduled post needs it); false when unknown
}

type callerKey struct{}

// WithCaller returns a context carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller put into ctx by WithCaller, and whether there
// was one.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
