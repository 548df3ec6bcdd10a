package memory

import "github.com/yorozu-bot/yorozu/db"

// Sources returns the pages a search tool's result came from (the hits of a
// web_search list, else the URLs it mentions), at most 10: what a knowledge
// entry keeps, and what the admin page shows under an answer.
func Sources(result string) []db.KnowledgeSource { return sources(result) }
