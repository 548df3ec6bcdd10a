// Package commands holds yorozu's slash commands, written without any
// knowledge of Discord.
//
// A Command is a declaration (name, descriptions, options, the permission
// it needs) plus a Run handler that gets a plain Request — who, where, with
// which permissions and options — and returns a Reply. The Discord adapter
// (package bot) turns the declarations into application commands, turns
// interactions into Requests, checks the declared permission before Run is
// called, and sends the Reply back. Adding a command is one file here that
// returns a Command, and its test.
package commands
