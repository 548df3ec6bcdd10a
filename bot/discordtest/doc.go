// Package discordtest is an in-process fake of Discord that speaks the real
// protocol: REST under /api/v{N}/ and a gateway websocket. Tests point the real
// discordgo client at it (as the bot's API base) and observe what the bot did.
//
// A test scripts what goes wrong on it (FailChannel, RateLimitNext,
// LoseCreateResponses, RefuseEdits, RefuseCommand, CloseGateway,
// RejectToken, SetUnreachable) and waits with WaitFor for what the bot did.
package discordtest
