// Package bot is the Discord adapter. It receives gateway events through
// discordgo, turns mentions and DMs into plain chat.Requests, answers each
// channel's messages in order through a Responder, and renders the streamed
// events as Discord messages: typing at once, a status line while tools run,
// throttled edits while text streams, the final text as soon as the turn is
// done, split at 2,000 characters with code fences kept balanced.
//
// The application needs these gateway intents (see Intents): Guilds, Guild
// Messages, Direct Messages and the privileged Message Content intent, which
// must be switched on in the Developer Portal (Bot → Privileged Gateway
// Intents → MESSAGE CONTENT INTENT).
//
// Package discordtest holds a fake Discord (REST + gateway) for tests.
package bot
