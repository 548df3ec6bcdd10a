// Package chat is what both adapters (Discord and the web page) hand a turn
// to: a router picks a handler by keywords, and the handler assembles the
// context from memory, runs the LLM pipeline and keeps the turn. Nothing
// here knows Discord or HTTP.
package chat
