// Package chat is what both adapters (Discord and the web page) hand a turn
// to: the router reads the documents attached to it (documents.go) and
// picks a handler by keywords, and the handler assembles the context from
// memory, runs the LLM pipeline and keeps the turn. Nothing here knows
// Discord or HTTP: an adapter hands attachments that load their own bytes.
package chat
