package chat

import (
	"fmt"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
)

// ToolDetailKeys are the arguments that say best what a tool call is about,
// in the order they are looked for (see ToolPreview).
var ToolDetailKeys = []string{"query", "url", "title", "content", "file_id", "reminder_id", "due_at"}

// ToolOutcome is what a person is shown of a finished tool call: one line
// of its result and, for a search, the pages it found. A search's line says
// how many and which.
func ToolOutcome(e llm.ToolFinished) (result string, sources []db.ActivitySource) {
	result = OneLine(e.Result, 200)
	if e.Err != nil || !isKnowledgeTool(e.Name) {
		return result, nil
	}
	for _, s := range memory.Sources(e.Result) {
		sources = append(sources, db.ActivitySource{Title: s.Title, URL: s.URL})
	}
	if len(sources) == 0 {
		return result, nil
	}
	titles := make([]string, len(sources))
	for i, s := range sources {
		titles[i] = s.Title
		if titles[i] == "" {
			titles[i] = s.URL
		}
	}
	return fmt.Sprintf("%d 件: %s", len(sources), OneLine(strings.Join(titles, "、"), 180)), sources
}

func isKnowledgeTool(name string) bool {
	for _, t := range memory.KnowledgeTools {
		if t == name {
			return true
		}
	}
	return false
}

// activityLog gathers a turn's tool calls and sources from its events, to
// be kept with the answer.
type activityLog struct {
	a       db.Activity
	running []int // indexes in a.Tools of calls not yet finished
}

func (l *activityLog) watch(emit func(llm.Event) error) func(llm.Event) error {
	return func(ev llm.Event) error {
		switch e := ev.(type) {
		case llm.ToolStarted:
			l.running = append(l.running, len(l.a.Tools))
			l.a.Tools = append(l.a.Tools, db.ToolCall{Name: e.Name, Detail: ToolPreview(e.Arguments, 100, ToolDetailKeys...)})
		case llm.ToolFinished:
			i := -1
			for k, idx := range l.running {
				if l.a.Tools[idx].Name == e.Name {
					i = idx
					l.running = append(l.running[:k], l.running[k+1:]...)
					break
				}
			}
			if i < 0 {
				l.a.Tools = append(l.a.Tools, db.ToolCall{Name: e.Name})
				i = len(l.a.Tools) - 1
			}
			result, srcs := ToolOutcome(e)
			t := &l.a.Tools[i]
			t.Result, t.Error, t.DurationMS = result, e.Err != nil, e.Duration.Milliseconds()
			l.a.Sources = append(l.a.Sources, srcs...)
		}
		return emit(ev)
	}
}
