package scheduler

import (
	"fmt"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db"
)

// The buttons on a delivered reminder. Their custom ids name the action and
// the reminder and are signed with Options.ButtonKey, so a press on a
// message from before a restart still works and a forged id is refused:
//
//	yz:r:<action>:<reminder id>:<signature>
const ButtonPrefix = "yz:r:"

// Button actions.
const (
	ActionSnooze10 = "s10"  // 「10分後」: a one-shot copy in 10 minutes
	ActionSnooze60 = "s60"  // 「1時間後」
	ActionDone     = "done" // 「完了」
	ActionSkip     = "skip" // 「次回をスキップ」, repeating only
	ActionStop     = "stop" // 「一時停止」, repeating only
)

// buttonID is the signed custom id of action on reminder id.
func buttonID(key []byte, action string, id int64) string {
	return commands.ButtonSigner{Key: key}.ID(ButtonPrefix, action, strconv.FormatInt(id, 10))
}

// ReadButton checks a pressed button's custom id and returns its action and
// reminder. A malformed id or an unknown action is an error; a bad
// signature is commands.ErrForgedButton.
func (r *Reminders) ReadButton(customID string) (action string, id int64, err error) {
	parts, err := commands.ButtonSigner{Key: r.s.opts.ButtonKey}.Read(customID, ButtonPrefix, 2)
	if err != nil {
		return "", 0, err
	}
	id, err = strconv.ParseInt(parts[1], 10, 64)
	if err != nil || id <= 0 {
		return "", 0, fmt.Errorf("button %q: bad reminder id", customID)
	}
	switch parts[0] {
	case ActionSnooze10, ActionSnooze60, ActionDone, ActionSkip, ActionStop:
		return parts[0], id, nil
	}
	return "", 0, fmt.Errorf("button %q: unknown action %q", customID, parts[0])
}

// buttons are the components of r's delivered message: snoozes and done,
// and for a repeating one skip and stop. None without a key.
func buttons(key []byte, r db.Reminder) []discordgo.MessageComponent {
	if len(key) == 0 || db.PostKind(r.Kind) {
		return nil
	}
	b := func(label, action string, style discordgo.ButtonStyle) discordgo.MessageComponent {
		return discordgo.Button{Label: label, Style: style, CustomID: buttonID(key, action, r.ID)}
	}
	row := []discordgo.MessageComponent{
		b("10分後", ActionSnooze10, discordgo.SecondaryButton),
		b("1時間後", ActionSnooze60, discordgo.SecondaryButton),
		b("完了", ActionDone, discordgo.SuccessButton),
	}
	if r.Repeats() {
		row = append(row, b("次回をスキップ", ActionSkip, discordgo.SecondaryButton), b("一時停止", ActionStop, discordgo.DangerButton))
	}
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: row}}
}

// ButtonID is the signed custom id of action on reminder id, as the
// delivered message carries it.
func (r *Reminders) ButtonID(action string, id int64) string {
	return buttonID(r.s.opts.ButtonKey, action, id)
}
