// Package memory is the conversation store the chat pipeline talks to: it
// assembles the context for a turn (Context) and keeps what was said (Record).
//
// Context is built from layers, in order: the system prompt, then the
// session's recent history, then the new user message. Summaries of archived
// turns and knowledge will join as further layers between the system prompt
// and the history.
package memory
