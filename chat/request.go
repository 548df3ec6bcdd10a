package chat

import (
	"context"
	"errors"
	"time"

	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/memory/talk"
)

// Request is one user turn, as an adapter (Discord, web) hands it over. It
// carries plain values only; the adapter keeps its own types to itself.
type Request struct {
	Session string // memory session key, e.g. "discord:channel:123"
	Source  string // "discord" or "web"
	GuildID string // empty in DMs and on the web
	// Space is whose memory the turn uses (memory.Space: "guild:<id>",
	// "dm:<user id>", "web"). Empty: the server of GuildID, else the
	// Discord user's DMs, else the default space (web chats).
	Space       string
	ChannelID   string
	MessageID   string // the user's message id on the platform, if any
	AuthorID    string
	AuthorName  string
	Text        string // the mention already stripped
	Attachments []Attachment
	// Documents are the attached files the adapter has read (and kept
	// with the conversation): they join the user's message within the
	// user's share of the context budget, apart from Text, which alone is
	// routed on and never cut.
	Documents []memory.Document
	// RepliedAttachments, when set, fetches the attachments of the message
	// this one replies to, for an adapter that does not have them at hand.
	// It is called only when they would be used (a model that can see
	// images); attachments already known go in Attachments (Replied).
	RepliedAttachments func(ctx context.Context) ([]Attachment, error)
	At                 time.Time
	// Model, when set, answers instead of the handler's own model (the
	// admin page's model selector).
	Model string

	// Chat sends the turn to the chat handler whatever its words: a
	// scheduled post's prompt is not a reminder request, though it may
	// say 毎週.
	Chat bool
	// ManageChannels: the author may manage this channel (creating a
	// scheduled post needs it); false when the adapter does not know.
	ManageChannels bool

	// ParentID is the parent channel when ChannelID is a thread.
	ParentID string
	// Persona is the channel's persona in force, if any; it joins the
	// system text after yorozu's own guidance.
	Persona string
	// AnswerTo is the platform id of the message the answer replies to when
	// it is not MessageID: a question asked from another message's menu
	// (「よろずに聞く」) is answered in reply to that message.
	AnswerTo string
	// ReplyTo is the platform id of the message this one replies to, if any.
	ReplyTo string
	// ReplyChain is that message and its own reply chain, newest first
	// (at most memory.MaxReplyChain), as the adapter found them.
	ReplyChain []memory.ChainMessage
	// Talk is what members said in the channel since yorozu last answered
	// there, oldest first, as the adapter keeps it (guild channels only).
	// It is left out where the channel's settings turn it off.
	Talk []talk.Message

	// Admit, when set, is waited for before the turn does anything that
	// lasts: before its first tool runs and before it is recorded (a
	// handler may wait for it before its first model call instead). The
	// Discord adapter claims the message meanwhile, and shows nothing of
	// the answer before the claim is made. An error ends the turn there,
	// with nothing run or recorded, with ErrNotAdmitted and that error.
	Admit func(ctx context.Context) error
	// Release, when set, is called once the turn's answer is complete and
	// the turn is part of its session's context for the turn after it
	// (recorded, or on its way to the database where the store keeps it
	// in the context meanwhile): the adapter may start the channel's next
	// turn while this one is still being stored. Not called for a turn
	// that failed.
	Release func()
}

// ErrNotAdmitted ends a turn whose Request.Admit failed. It is not a
// turn's outcome: the adapter runs the turn again once the message is
// claimed, or leaves it to the process that claimed it.
var ErrNotAdmitted = errors.New("turn not admitted")

// Attachment is a file the user sent with the message, or one of the
// message the user replied to.
type Attachment struct {
	URL         string
	Filename    string
	ContentType string
	Size        int // bytes, as the platform reports them; 0 if unknown
	// Width and Height of an image, as the platform reports them; 0 if
	// unknown.
	Width, Height int
	// Replied is set for a file of the message the user replied to.
	Replied bool
	// Load reads the file's bytes (at most vision.MaxBytes; the adapter
	// enforces where from). It is called only when the file is used: an
	// image for a model that can see.
	Load func(ctx context.Context) ([]byte, error)
	// LoadDocument reads the file's bytes as a document: of any type, at
	// most MaxDocumentBytes (the adapter enforces where from). It is called
	// only for a file that is not an image and may be read (withDocuments).
	LoadDocument func(ctx context.Context) ([]byte, error)
}

func (r Request) space() memory.Space {
	if r.Space != "" {
		return memory.Space(r.Space)
	}
	return memory.SpaceOf(r.Source, r.GuildID, r.AuthorID)
}
