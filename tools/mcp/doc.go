// Package mcp offers the tools of external MCP servers (MCP_SERVERS) to the
// model through the same registry as the built-in tools.
//
// Servers are stdio commands or streamable HTTP endpoints, reached with the
// official Go SDK. Their tools are listed once at start and each becomes a
// tools.Tool named "<server>_<tool>". A server that cannot be reached is
// logged and skipped; the bot runs without it. A stdio server gets PATH,
// HOME, LANG, TZ and USER of the bot's environment and its own env, none of
// the bot's secrets.
package mcp
