package commands

import "context"

// Press is one press of a message button. The adapter hands it to the
// Buttons whose Prefix starts its CustomID.
type Press struct {
	// CustomID is the button's custom id as the message carries it: not to
	// be trusted until the handler has checked it (a client can send any).
	CustomID  string
	UserID    string
	GuildID   string // "" in a DM
	ChannelID string
	MessageID string // the message the button is on
	Content   string // that message's text
	// Perms are what the presser may do in that channel.
	Perms Permission
}

// PressReply answers a press. Text, when set, is shown only to the
// presser. Update, when set, replaces the pressed message's content and
// removes its buttons (「✅ 完了」); both may be set.
type PressReply struct {
	Text   string
	Update string
}

// Buttons answers the presses of the buttons whose custom ids start with
// Prefix, on any message, also one posted before a restart.
type Buttons struct {
	Prefix string
	Press  func(ctx context.Context, p Press) PressReply
}
