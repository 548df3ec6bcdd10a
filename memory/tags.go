package memory

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory/wordpool"
)

// TagsPerItem is how many tags a message or a summary gets.
const TagsPerItem = 3

var tagsFormat = json.RawMessage(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"minItems":3,"maxItems":3}},"required":["tags"]}`)

const tagsPrompt = `次の文章の話題を表す短いタグ (名詞) を 3 つ、文章と同じ言語で選んでください。JSON {"tags": ["…", "…", "…"]} だけを返します。`

// tagMessages tags each message of a stored turn. Failures are logged.
func (m *Memory) tagMessages(ctx context.Context, msgs []db.Message) {
	modelDown := false
	for _, msg := range msgs {
		if ctx.Err() != nil {
			return
		}
		if strings.TrimSpace(msg.Content) == "" {
			continue
		}
		var tags []string
		tags, modelDown = m.tags(ctx, msg.Content, modelDown)
		if len(tags) == 0 {
			continue
		}
		if err := db.SetMessageTags(ctx, m.pool, msg.ID, tags); err != nil {
			m.log.Warn("tag message", "message_id", msg.ID, "err", err)
		}
	}
}

func (m *Memory) tagMemory(ctx context.Context, mem db.Memory) {
	tags, _ := m.tags(ctx, mem.Content, false)
	if len(tags) == 0 {
		return
	}
	if err := db.SetMemoryTags(ctx, m.pool, mem.ID, tags); err != nil {
		m.log.Warn("tag memory", "memory_id", mem.ID, "err", err)
	}
}

// tags asks the model for TagsPerItem tags (JSON format) and falls back to
// the most frequent nouns of text when it fails or skip is set. The second
// result reports the model as down, so the caller skips it for the rest of
// a batch.
func (m *Memory) tags(ctx context.Context, text string, skip bool) ([]string, bool) {
	if m.opts.Ollama != nil && !skip {
		out, err := m.complete(ctx, tagsPrompt, text, tagsFormat)
		if err == nil {
			var v struct {
				Tags []string `json:"tags"`
			}
			if json.Unmarshal([]byte(out), &v) == nil {
				if tags := cleanTags(v.Tags); len(tags) > 0 {
					return tags, false
				}
			}
		} else {
			m.log.Debug("tags from nouns: model unavailable", "err", err)
			skip = true
		}
	}
	return NounTags(text), skip || m.opts.Ollama == nil
}

// NounTags picks up to TagsPerItem nouns of text, the most frequent first
// (first seen breaks ties), with kagome: the tags when the model is down.
func NounTags(text string) []string {
	nouns := wordpool.Nouns(text)
	slices.SortStableFunc(nouns, func(a, b string) int {
		return strings.Count(text, b) - strings.Count(text, a)
	})
	return cleanTags(nouns)
}

func cleanTags(in []string) []string {
	var out []string
	for _, t := range in {
		t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "#"))
		if t == "" || len([]rune(t)) > 40 || slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
		if len(out) == TagsPerItem {
			break
		}
	}
	return out
}
