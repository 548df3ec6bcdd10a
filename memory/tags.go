package memory

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory/wordpool"
)

// TagsPerItem is how many tags a message or a summary gets.
const TagsPerItem = 3

// maxTagRunes bounds a tag: longer ones are sentences, not tags.
const maxTagRunes = 40

// WordPool is the recent vocabulary of a space: message tags are ranked
// against it, the nouns of each user message feed it, and it offers a topic
// when no tag fits. *wordpool.Pool satisfies it.
type WordPool interface {
	Knows(word string) bool
	AddNouns(nouns []string)
	Related(text string, r *rand.Rand) (string, bool)
}

// tagTurn tags the messages of a stored turn with kagome, without the
// model: each message gets its own nouns, topped up with the rest of the
// turn's (a short reply is about what was asked), ranked against the word
// pool. Then small talk's kept tags of the space are read again and the
// user's nouns join the pool. Failures are logged.
func (m *Memory) tagTurn(ctx context.Context, space Space, msgs []db.Message) {
	pool := m.wordPool(ctx, space)
	nouns := make([][]string, len(msgs))
	var turn []string
	for i, msg := range msgs {
		nouns[i] = wordpool.Nouns(msg.Content)
		turn = append(turn, nouns[i]...)
	}
	tagged := false
	for i, msg := range msgs {
		if ctx.Err() != nil {
			return
		}
		tags := rankTags(msg.Content, nouns[i], turn, pool)
		if len(tags) == 0 {
			continue // nothing in the turn names a topic
		}
		if err := db.SetMessageTags(ctx, m.pool, msg.ID, tags); err != nil {
			m.log.Warn("tag message", "message_id", msg.ID, "err", err)
			continue
		}
		tagged = true
	}
	if tagged {
		m.refreshTopicTags(ctx, space)
	}
	if pool == nil {
		return
	}
	for i, msg := range msgs {
		if msg.Role == db.RoleUser {
			pool.AddNouns(nouns[i])
		}
	}
}

func (m *Memory) wordPool(ctx context.Context, space Space) WordPool {
	if m.opts.Words == nil {
		return nil
	}
	return m.opts.Words(ctx, space)
}

// readyWordPool is wordPool for a turn before its model call: nil rather
// than waiting for the pool to be seeded (Options.WordsReady).
func (m *Memory) readyWordPool(ctx context.Context, space Space) WordPool {
	if m.opts.WordsReady == nil {
		return m.wordPool(ctx, space)
	}
	return m.opts.WordsReady(space)
}

// rankTags picks TagsPerItem tags for text from its own nouns, then the
// turn's: a noun the pool knows (people use it lately) first, then the more
// frequent in text, then the first seen.
func rankTags(text string, own, turn []string, pool WordPool) []string {
	type cand struct {
		word       string
		own, known bool
		count      int
	}
	var cands []cand
	for _, list := range [][]string{own, turn} {
		for _, w := range list {
			if slices.ContainsFunc(cands, func(c cand) bool { return c.word == w }) {
				continue
			}
			cands = append(cands, cand{
				word: w, own: slices.Contains(own, w), known: pool != nil && pool.Knows(w),
				count: strings.Count(text, w),
			})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.own != b.own:
			return boolOrder(a.own)
		case a.known != b.known:
			return boolOrder(a.known)
		}
		return b.count - a.count
	})
	words := make([]string, len(cands))
	for i, c := range cands {
		words[i] = c.word
	}
	return cleanTags(words)
}

// boolOrder sorts true first.
func boolOrder(first bool) int {
	if first {
		return -1
	}
	return 1
}

// NounTags picks up to TagsPerItem nouns of text, the most frequent first
// (first seen breaks ties), with kagome: the tags of a summary whose answer
// came without them.
func NounTags(text string) []string {
	return rankTags(text, wordpool.Nouns(text), nil, nil)
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
