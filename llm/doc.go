// Package llm runs one turn of a conversation with a model: it streams the
// answer as Events, lets the model call tools for up to MaxToolRounds
// rounds, trims tool results before they go back, keeps thinking out of
// the visible answer, and records every call.
//
// It knows no adapter (Discord, web) and no database table: callers pass a
// Pool of model servers (each a Backend: Client for Ollama, or an
// OpenAI-compatible client), a ToolSet and a Recorder.
//
// # The pool
//
// Each server of a Pool has slots. A chat call takes a free slot on a
// server that has its model (the least busy one) or waits in one line for
// the whole pool; background calls wait behind every user turn. A server
// that fails before anything was shown is taken out with backoff and the
// call goes to another that has the model. With Leases (db.SlotLeases)
// the slots are shared by every process using the same servers.
//
// # Tools
//
// A model whose /api/show capabilities include "tools" gets the tool
// definitions natively. Any other model is offered the same tools through
// structured output: the request's format is a JSON schema for
//
//	{"tool_calls": [{"name": "<one of the tool names>", "arguments": {…}}],
//	 "answer": "<text for the user>"}
//
// and a system message lists the tools. A reply with tool_calls runs them
// (same loop, same round limit); otherwise answer is the visible reply,
// emitted as one Text event once the call is complete. Because such
// templates usually render only system, user and assistant roles (a "tool"
// message would be silently dropped), fallback requests carry tool results
// as "user" messages prefixed with "Tool result (<name>):", and earlier
// assistant tool calls as the JSON the model produced. Result.Messages
// always holds the native form: assistant ToolCalls and "tool" messages.
//
// # Errors
//
// Failures wrap ErrModelNotFound (the model is not pulled) or
// ErrUnavailable (Ollama unreachable, 5xx, stream broken) so adapters can
// test them with errors.Is; the cancelled caller's context error is
// returned as is.
package llm
