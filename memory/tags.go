package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory/wordpool"
)

// TagsPerItem is how many tags a message or a summary gets.
const TagsPerItem = 3

// maxTagRunes bounds a tag: longer ones are sentences, not tags.
const maxTagRunes = 40

const tagsPrompt = `次の %[1]d 件の文章 ([1]〜[%[1]d]) それぞれについて、話題を表す短いタグ (名詞) を 3 つずつ、その文章と同じ言語で選んでください。` +
	`文章の順に、1 件につき 3 つのタグの配列を並べた JSON {"tags": [["…", "…", "…"], …]} だけを返します。配列はちょうど %[1]d 個です。`

// tagsFormat is the JSON schema of the answer for n texts: n arrays of
// TagsPerItem non-empty strings, so the model cannot skip or merge texts.
func tagsFormat(n int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"tags":{"type":"array",`+
		`"items":{"type":"array","items":{"type":"string","minLength":1},"minItems":%d,"maxItems":%d},`+
		`"minItems":%d,"maxItems":%d}},"required":["tags"]}`, TagsPerItem, TagsPerItem, n, n))
}

// tagMessages tags the messages of a stored turn with one model call; the
// background calls compete with users' turns for the GPU. Failures are logged.
func (m *Memory) tagMessages(ctx context.Context, msgs []db.Message) {
	msgs = slices.DeleteFunc(slices.Clone(msgs), func(msg db.Message) bool {
		return strings.TrimSpace(msg.Content) == ""
	})
	texts := make([]string, len(msgs))
	for i, msg := range msgs {
		texts[i] = msg.Content
	}
	for i, tags := range m.tags(ctx, texts) {
		if ctx.Err() != nil {
			return
		}
		if len(tags) == 0 {
			continue
		}
		if err := db.SetMessageTags(ctx, m.pool, msgs[i].ID, tags); err != nil {
			m.log.Warn("tag message", "message_id", msgs[i].ID, "err", err)
		}
	}
}

func (m *Memory) tagMemory(ctx context.Context, mem db.Memory) {
	tags := m.tags(ctx, []string{mem.Content})[0]
	if len(tags) == 0 {
		return
	}
	if err := db.SetMemoryTags(ctx, m.pool, mem.ID, tags); err != nil {
		m.log.Warn("tag memory", "memory_id", mem.ID, "err", err)
	}
}

// tags returns the tags of each text, in order: TagsPerItem from one model
// call for all texts, or the most frequent nouns of every text when the
// model is down or its answer is malformed.
func (m *Memory) tags(ctx context.Context, texts []string) [][]string {
	if len(texts) == 0 {
		return nil
	}
	if m.opts.Ollama != nil {
		out, err := m.complete(llm.WithKind(ctx, llm.KindTags), fmt.Sprintf(tagsPrompt, len(texts)), numbered(texts), tagsFormat(len(texts)))
		if err != nil {
			m.log.Debug("tags from nouns: model unavailable", "err", err)
		} else if tags, err := parseTags(out, len(texts)); err != nil {
			m.log.Debug("tags from nouns: malformed answer", "err", err, "answer", out)
		} else {
			return tags
		}
	}
	tags := make([][]string, len(texts))
	for i, text := range texts {
		tags[i] = NounTags(text)
	}
	return tags
}

// numbered lays texts out as "[1]\n…\n\n[2]\n…", the numbering the prompt
// refers to.
func numbered(texts []string) string {
	var b strings.Builder
	for i, text := range texts {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[%d]\n%s", i+1, strings.TrimSpace(text))
	}
	return b.String()
}

// parseTags reads the model's answer for n texts: n lists of TagsPerItem
// non-empty tags each, trimmed and de-duplicated per list.
func parseTags(answer string, n int) ([][]string, error) {
	var v struct {
		Tags [][]string `json:"tags"`
	}
	if err := json.Unmarshal([]byte(answer), &v); err != nil {
		return nil, fmt.Errorf("decode tags: %w", err)
	}
	if len(v.Tags) != n {
		return nil, fmt.Errorf("%d tag lists for %d texts", len(v.Tags), n)
	}
	out := make([][]string, n)
	for i, list := range v.Tags {
		if len(list) != TagsPerItem {
			return nil, fmt.Errorf("text %d: %d tags, want %d", i+1, len(list), TagsPerItem)
		}
		if slices.ContainsFunc(list, func(t string) bool { return cleanTag(t) == "" }) {
			return nil, fmt.Errorf("text %d: empty tag in %q", i+1, list)
		}
		if out[i] = cleanTags(list); len(out[i]) == 0 {
			return nil, fmt.Errorf("text %d: no usable tag in %q", i+1, list)
		}
	}
	return out, nil
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

// cleanTags keeps the first TagsPerItem distinct usable tags of in.
func cleanTags(in []string) []string {
	var out []string
	for _, t := range in {
		t = cleanTag(t)
		if t == "" || len([]rune(t)) > maxTagRunes || slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
		if len(out) == TagsPerItem {
			break
		}
	}
	return out
}

// cleanTag trims a tag and the "#" models like to put before it.
func cleanTag(t string) string {
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "#"))
}
