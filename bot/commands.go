package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// registerCommands registers the slash commands once per process, after the
// first successful connect. A refusal is logged as a warning naming the
// commands, shown by Status, and retried in the background with backoff;
// commands Discord did not object to are registered meanwhile.
func (b *Bot) registerCommands(ctx context.Context) {
	b.mu.Lock()
	cmds, start := b.commands, !b.commandsDone && !b.commandsLooping
	if start {
		b.commandsLooping = true
	}
	b.mu.Unlock()
	if !start || len(cmds) == 0 {
		return
	}
	if b.tryRegister(ctx, cmds) {
		return
	}
	b.loops.Add(1)
	go func() {
		defer b.loops.Done()
		backoff := b.opts.RetryMin
		for {
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-b.retryCommands:
			case <-t.C:
			}
			t.Stop()
			if b.tryRegister(ctx, cmds) {
				return
			}
			backoff = min(backoff*2, b.opts.CommandRetryMax)
		}
	}()
}

// tryRegister overwrites the application's commands with cmds. On a refusal
// that names commands, the others are registered without them. It reports
// whether all of cmds are registered.
func (b *Bot) tryRegister(ctx context.Context, cmds []*discordgo.ApplicationCommand) bool {
	b.mu.Lock()
	appID := b.appID
	b.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	_, err := b.session.ApplicationCommandBulkOverwrite(appID, "", cmds, discordgo.WithContext(rctx))
	if err == nil {
		b.mu.Lock()
		prev := b.commandsDiag
		b.commandsDone, b.commandsLooping, b.commandsDiag = true, false, nil
		b.mu.Unlock()
		if prev != nil {
			b.log.Info("slash commands registered", "commands", commandNames(cmds, nil))
		} else {
			b.log.Debug("slash commands registered", "commands", commandNames(cmds, nil))
		}
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	bad := refusedCommands(err, cmds)
	failed := bad
	if len(bad) == 0 {
		failed = map[int]string{}
		for i := range cmds {
			failed[i] = ""
		}
	}
	d := Diagnosis{
		Code:    DiagCommands,
		Message: "not registered: " + commandNames(cmds, failed) + " (" + errorSummary(err) + ")",
		Fix: "スラッシュコマンドを登録できませんでした。メンションには答えます。再試行を続けます / " +
			"Discord refused the slash commands; mentions are still answered and registration is retried",
	}
	b.mu.Lock()
	prev := b.commandsDiag
	b.commandsDiag = &d
	b.mu.Unlock()
	if prev == nil || prev.Message != d.Message {
		b.log.Warn("discord refused slash commands", "commands", commandNames(cmds, failed), "err", err, "retry", true)
	}
	// Register the commands Discord had nothing against, so only the named
	// ones are missing.
	if len(bad) > 0 && len(bad) < len(cmds) {
		var rest []*discordgo.ApplicationCommand
		for i, c := range cmds {
			if _, ok := bad[i]; !ok {
				rest = append(rest, c)
			}
		}
		if _, err := b.session.ApplicationCommandBulkOverwrite(appID, "", rest, discordgo.WithContext(rctx)); err != nil {
			b.log.Debug("register the other slash commands", "err", err)
		}
	}
	return false
}

// refusedCommands reads which commands a 400 Invalid Form Body names: its
// errors object is keyed by the index of each bad command. The value is the
// first reason given for it.
func refusedCommands(err error, cmds []*discordgo.ApplicationCommand) map[int]string {
	var rest *discordgo.RESTError
	if !errors.As(err, &rest) || len(rest.ResponseBody) == 0 {
		return nil
	}
	var body struct {
		Errors map[string]json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(rest.ResponseBody, &body) != nil {
		return nil
	}
	out := map[int]string{}
	for k, v := range body.Errors {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= len(cmds) {
			continue
		}
		out[i] = firstReason(v, "")
	}
	return out
}

// firstReason finds the first "_errors" message in a nested Discord form
// error, prefixed by the field path.
func firstReason(raw json.RawMessage, path string) string {
	var node map[string]json.RawMessage
	if json.Unmarshal(raw, &node) != nil {
		return ""
	}
	if errs, ok := node["_errors"]; ok {
		var list []struct{ Message string }
		if json.Unmarshal(errs, &list) == nil && len(list) > 0 {
			if path == "" {
				return list[0].Message
			}
			return path + ": " + list[0].Message
		}
	}
	keys := make([]string, 0, len(node))
	for k := range node {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := k
		if path != "" {
			p = path + "." + k
		}
		if r := firstReason(node[k], p); r != "" {
			return r
		}
	}
	return ""
}

// commandNames lists "/a, /b (reason)"; only those in which when it is not
// nil.
func commandNames(cmds []*discordgo.ApplicationCommand, which map[int]string) string {
	var names []string
	for i, c := range cmds {
		reason, ok := which[i]
		if which != nil && !ok {
			continue
		}
		n := "/" + c.Name
		if reason != "" {
			n += ": " + reason
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// errorSummary is a REST error's status and Discord message, or err.
func errorSummary(err error) string {
	var rest *discordgo.RESTError
	if errors.As(err, &rest) && rest.Response != nil {
		if rest.Message != nil && rest.Message.Message != "" {
			return fmt.Sprintf("HTTP %d: %s", rest.Response.StatusCode, rest.Message.Message)
		}
		return fmt.Sprintf("HTTP %d", rest.Response.StatusCode)
	}
	return err.Error()
}
