// Package memory is the conversation store the chat pipeline talks to: it
// assembles the context for a turn (Context) and keeps what was said (Record).
//
// Context is built from layers, in order: the system prompt (persona, date
// and time), knowledge headings, the notes index, linked notes, knowledge-base
// files, the session's summaries, recent unsummarised messages, and the new
// user message. Everything fits Options.TokenBudget as counted by
// EstimateTokens; see Context for the order in which layers give way.
//
// In the background, without delaying a reply: every stored message gets
// three tags (the model with a JSON format, kagome nouns when it is down);
// when a session holds SummarizeAt unsummarised messages the older half is
// summarised into a memories row and archived (kept, no longer sent); when a
// session's summaries outgrow their share of the budget the oldest are folded
// into one; web_search results become knowledge entries (KnowledgeHook).
// SyncKnowledgeBase indexes the Markdown knowledge base; the notes methods
// keep the shared notes and announce changes (SubscribeNotes).
package memory
