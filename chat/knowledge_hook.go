package chat

import (
	"context"
	"encoding/json"

	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
)

// KnowledgeHook is the tool registry's after-hook that hands every web
// search result to memory, which keeps what is worth keeping as knowledge in
// the background. The result goes back to the model unchanged and at once.
func KnowledgeHook(m *memory.Memory) tools.AfterHook {
	return func(ctx context.Context, call tools.Invocation, result string, err error) (string, error) {
		if err != nil {
			return result, err
		}
		var args struct {
			Query string `json:"query"`
		}
		_ = json.Unmarshal(call.Args, &args) // a query-less call still teaches its result
		caller, _ := tools.CallerFrom(ctx)
		m.LearnLater(memory.LearnInput{
			Tool:    call.Tool,
			Query:   args.Query,
			Session: memory.SessionKey(caller.Session),
			Space:   memory.Space(caller.Space),
			Result:  result,
		})
		return result, err
	}
}
