package chat

import "time"

// Request is one user turn, as an adapter (Discord, web) hands it over. It
// carries plain values only; the adapter keeps its own types to itself.
type Request struct {
	Session     string // memory session key, e.g. "discord:channel:123"
	Source      string // "discord" or "web"
	GuildID     string // empty in DMs and on the web
	ChannelID   string
	MessageID   string // the user's message id on the platform, if any
	AuthorID    string
	AuthorName  string
	Text        string // the mention already stripped
	Attachments []Attachment
	At          time.Time
}

// Attachment is a file the user sent with the message.
type Attachment struct {
	URL         string
	Filename    string
	ContentType string
	Size        int
}
