package commands

import (
	"context"
	"strconv"
	"strings"
)

// Permission is a set of the permissions a command can need, as the
// adapter learns them for the user and the channel of a Request.
type Permission uint8

// The permissions commands need. A server's administrators have all of
// them; so has the user of a DM, where nobody else is.
const (
	// ManageMessages is needed to change a channel's memory (/forget) or
	// others' reminders.
	ManageMessages Permission = 1 << iota
	// ManageChannels is needed to change a channel's persona or model.
	ManageChannels
	// ManageEvents (Discord's Manage Events or Create Events) is needed
	// to create a server event yorozu proposed.
	ManageEvents

	// All is every permission (an administrator, or a DM's user).
	All = ManageMessages | ManageChannels | ManageEvents
)

// OptionType is the kind of value an option takes.
type OptionType int

// The option types commands use.
const (
	String OptionType = iota + 1
	Integer
	Boolean
	// Subcommand is an option that is a command of its own (/remind list):
	// it has Options, not a value.
	Subcommand
	// Channel is a channel of the server, picked from a list; its value
	// is the channel's id.
	Channel
)

// Choice is one value offered for an option, by a fixed list or by
// autocomplete.
type Choice struct {
	Name   string
	NameJA string // optional Japanese name
	Value  string
}

// Option declares one option (or subcommand) of a command.
type Option struct {
	Type          OptionType
	Name          string
	Description   string
	DescriptionJA string // optional Japanese description
	Required      bool
	// Autocomplete asks the adapter to call the command's Complete while
	// the user types this option.
	Autocomplete bool
	MinValue     *float64 // Integer: the least value (nil: none)
	MaxLength    int      // String: the most characters (0: Discord's limit)
	Choices      []Choice // a fixed list of values (nil: any)
	// Options are a subcommand's own options.
	Options []Option
	// Require is what using this subcommand needs; zero means the
	// command's Require applies.
	Require Permission
	// Refusal is a subcommand's reply to someone who lacks its Require,
	// when the command's would not say what is missing; "": the command's.
	Refusal string
}

// Command is one slash command: what the adapter declares, and the
// handlers it calls.
type Command struct {
	Name          string
	NameJA        string // optional Japanese name (要約)
	Description   string
	DescriptionJA string // optional Japanese description
	Options       []Option
	// Visible is who sees the command by default (the adapter declares it
	// as the command's default member permissions); zero: everyone.
	// Servers can change who sees a command, so Require is what is checked.
	Visible Permission
	// Require is what using the command needs, checked by the adapter on
	// every use (a subcommand's own Require wins); zero: nothing.
	Require Permission
	// Refusal is the reply to someone who lacks Require.
	Refusal string
	// Message makes the command a message context-menu command (Apps →
	// 「ここから要約」): it takes no options and no description, its Name
	// may have spaces, and Request.TargetID is the message it was used on.
	Message bool
	// Anywhere declares the command also for yorozu installed to a user's
	// account, so it is offered in DMs and group DMs where yorozu is not a
	// member (Request.BotAbsent); the others are offered only where yorozu
	// is, and say so if used elsewhere.
	Anywhere bool
	// Modal, when set, makes a use of the command open a form (Discord's
	// modal) instead of running: what the user writes in it comes to
	// Submit as the Request's Options, by input ID. Only a message command
	// has one here.
	Modal *Modal
	// Submit answers a sent Modal.
	Submit func(ctx context.Context, req Request) Reply
	// Run answers one use of the command.
	Run func(ctx context.Context, req Request) Reply
	// Complete offers values for the option being typed (Request.Focused);
	// nil when no option autocompletes. The adapter shows at most 25 and
	// waits about 3 seconds for them.
	Complete func(ctx context.Context, req Request) []Choice
}

// Modal is a form a command opens.
type Modal struct {
	Title  string
	Inputs []Input
}

// Input is one text field of a Modal.
type Input struct {
	ID          string
	Label       string
	Placeholder string
	MaxLength   int
	Required    bool
	Long        bool // several lines
}

// Subcommand returns the declaration of the named subcommand of c.
func (c Command) Subcommand(name string) (Option, bool) {
	for _, o := range c.Options {
		if o.Type == Subcommand && o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}

// Required is what using subcommand sub of c needs.
func (c Command) Required(sub string) Permission {
	if o, ok := c.Subcommand(sub); ok && o.Require != 0 {
		return o.Require
	}
	return c.Require
}

// RefusalFor is the reply to someone who lacks what subcommand sub (""
// for none) requires: its own Refusal, else the command's.
func (c Command) RefusalFor(sub string) string {
	if o, ok := c.Subcommand(sub); ok && o.Refusal != "" {
		return o.Refusal
	}
	return c.Refusal
}

// Request is one use of a command.
type Request struct {
	Command    string
	Subcommand string // "" when the command has none
	// Options are the values given, by name: string, int64, float64 or
	// bool. Read them with String, Int and Bool, which accept the other
	// spellings a client may send.
	Options map[string]any
	// Focused is the option being typed, for Complete.
	Focused string

	UserID    string
	GuildID   string // "" in a DM
	ChannelID string // the channel, thread or DM the command came from
	// Perms are what the user may do in that channel.
	Perms Permission
	// TargetID is the message a message command was used on.
	TargetID string
	// BotAbsent: the command was used where yorozu is not a member (a
	// group DM, or a server it is not in, through a user install), so it
	// can neither read nor post there; only the reply to the command
	// reaches the user.
	BotAbsent bool
	// OpenDM, when set (where BotAbsent), opens the user's DM with yorozu
	// and returns its channel: what yorozu has to deliver later (a
	// reminder) goes there, as it cannot post where the command came from.
	OpenDM func(ctx context.Context) (channelID string, err error)
	// Progress, when set, shows how far a slow command is (要約中… 3/8)
	// to its user while the reply is awaited; the adapter may show only
	// the latest.
	Progress func(text string)
}

// Report shows text as the command's progress, when the adapter can.
func (r Request) Report(text string) {
	if r.Progress != nil {
		r.Progress(text)
	}
}

// DM reports whether the command came from a direct message.
func (r Request) DM() bool { return r.GuildID == "" }

// Can reports whether the user has every permission in p.
func (r Request) Can(p Permission) bool { return r.Perms&p == p }

// String is the named option as trimmed text ("" when absent).
func (r Request) String(name string) string {
	switch v := r.Options[name].(type) {
	case string:
		return strings.TrimSpace(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// Int is the named option as an integer (0 when absent or not a number).
func (r Request) Int(name string) int64 {
	switch v := r.Options[name].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	case string:
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		return n
	}
	return 0
}

// Bool is the named option as a boolean (false when absent).
func (r Request) Bool(name string) bool {
	switch v := r.Options[name].(type) {
	case bool:
		return v
	case string:
		b, _ := strconv.ParseBool(strings.TrimSpace(v))
		return b
	}
	return false
}

// Reply is a command's answer. It mentions nobody.
type Reply struct {
	Text string
	// Public shows the reply to the whole channel; by default only the
	// user who used the command sees it.
	Public bool
	// Buttons go under the reply's text, in one row (登録 / やめる).
	Buttons []Button
}

// Button is one button under a Reply: its id is handled by the Buttons
// whose Prefix starts it.
type Button struct {
	Label    string
	CustomID string
	// Secondary shows it grey (a way out); otherwise it is the green one.
	Secondary bool
}

// Text is a reply only its user sees.
func Text(s string) Reply { return Reply{Text: s} }

// maxReplyRunes is the most characters a reply's text may have (Discord's
// limit on a message).
const maxReplyRunes = 2000

// NotHereReply answers a command that needs yorozu where it is not a
// member.
const NotHereReply = "ここにはよろずが参加していないため、このコマンドは使えません。よろずがいるサーバーか、よろずとの DM で使ってください。"

// unsupportedReply answers a subcommand the handler does not know.
const unsupportedReply = "このコマンドには対応していません。"
