// Package memory is the conversation store the chat pipeline talks to: it
// assembles the context for a turn (Context) and keeps what was said (Record).
//
// Context is built from layers, in order: the system prompt (persona, date
// and time), knowledge headings, the notes index, linked notes, knowledge-base
// files, the session's summaries, recent unsummarised messages, and the new
// user message. Everything fits Options.TokenBudget as counted by
// EstimateTokens; see Context for the order in which layers give way.
//
// In the background, without delaying a reply and without a model call:
// every stored message gets up to three tags, the turn's nouns (kagome)
// ranked against the word pool, and the user's nouns join the pool. With a
// model call: once a session holds SummarizeAt and half as many again
// unsummarised messages, the oldest SummarizeAt are summarised into a
// memories row, with its tags in the same answer, and archived (kept, no
// longer sent); when a session's summaries outgrow their share of the budget
// the oldest are folded into one; web search results become knowledge
// entries (LearnLater). Tags are read by RelatedTopic and RecentTopic,
// which give small talk and the tips a topic related to what was said
// (small talk's from each space's recent tags, kept in memory). Forgetting
// summaries (ForgetSummaries) hides them at once; the scheduler's purge
// job deletes them later.
// Begin makes a turn part of its conversation's context before the
// transaction that stores it ends (Record is Begin and its commit at once).
// With Options.ContextCache, Context's database reads are cached per
// conversation and kept right by the database's notices of changes (any
// process), by the writes made through Memory, and by this process's own
// turns (see cache.go and docs/architecture.md).
// SyncKnowledgeBase indexes the Markdown knowledge base; the notes methods
// keep the shared notes, with the text they replace or delete restorable.
package memory
