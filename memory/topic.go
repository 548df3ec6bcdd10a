package memory

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory/wordpool"
)

// How much of what was said lately a topic is chosen from.
const (
	topicMessages  = 60 // the latest unsummarised messages' tags
	topicSummaries = 10 // and the latest summaries' tags
	// minTopicSimilarity is how close a tag must be to one of the user's
	// words to count as related (see similarity).
	minTopicSimilarity = 0.3
)

// RelatedTopic returns a topic related to text from what was said lately
// in space ("" for the default space): the tag of its recent messages and
// summaries closest to one of text's nouns (the more often and the more
// lately said, the better); else a word of its word pool related to text;
// "" when there is nothing to pick from. Small talk uses it, before its
// model call: the tags are kept in memory (see topicTags).
func (m *Memory) RelatedTopic(ctx context.Context, space Space, text string) (string, error) {
	space, err := m.space(ctx, space)
	if err != nil {
		return "", err
	}
	tags, err := m.recentTags(ctx, space)
	if err != nil {
		return "", err
	}
	if t := closestTag(tags, wordpool.Nouns(text)); t != "" {
		return t, nil
	}
	return m.poolTopic(m.readyWordPool(ctx, space), text), nil
}

// RecentTopic returns a topic from what was said lately in space ("" for
// the default space): one of its recent tags, the more often said the
// likelier; else a word of its word pool; "" when nothing was said. The
// tips job uses it.
func (m *Memory) RecentTopic(ctx context.Context, space Space) (string, error) {
	space, err := m.space(ctx, space)
	if err != nil {
		return "", err
	}
	tags, err := db.RecentTags(ctx, m.pool, string(space), topicMessages, topicSummaries)
	if err != nil {
		return "", err
	}
	if len(tags) > 0 {
		return tags[rand.IntN(len(tags))].Tag, nil // a tag said twice is twice as likely
	}
	return m.poolTopic(m.wordPool(ctx, space), ""), nil
}

func (m *Memory) poolTopic(pool WordPool, text string) string {
	if pool != nil {
		if w, ok := pool.Related(text, nil); ok {
			return w
		}
	}
	return ""
}

// closestTag returns the tag most similar to one of words (at least
// minTopicSimilarity); among equals, the one said more often, then more
// lately. tags come newest first. "" when none is close.
func closestTag(tags []db.RecentTag, words []string) string {
	type cand struct {
		tag    string
		sim    float64
		count  int
		newest int
	}
	var cands []*cand
	byTag := map[string]*cand{}
	for i, t := range tags {
		if c := byTag[t.Tag]; c != nil {
			c.count++
			continue
		}
		c := &cand{tag: t.Tag, count: 1, newest: i}
		for _, w := range words {
			c.sim = max(c.sim, similarity(t.Tag, w))
		}
		byTag[t.Tag] = c
		cands = append(cands, c)
	}
	var best *cand
	for _, c := range cands {
		if c.sim < minTopicSimilarity {
			continue
		}
		if best == nil || c.sim > best.sim || (c.sim == best.sim && c.count > best.count) {
			best = c
		}
	}
	if best == nil {
		return ""
	}
	return best.tag
}

// similarity of two words, from 0 to 1: 1 when equal (case aside), 0.8 when
// one contains the other (猫 and 猫カフェ), else the Dice coefficient of their
// character pairs (東京駅 and 東京タワー share 東京).
func similarity(a, b string) float64 {
	a, b = strings.ToLower(a), strings.ToLower(b)
	switch {
	case a == "" || b == "":
		return 0
	case a == b:
		return 1
	case strings.Contains(a, b) || strings.Contains(b, a):
		return 0.8
	}
	pa, pb := bigrams(a), bigrams(b)
	if len(pa) == 0 || len(pb) == 0 {
		return 0
	}
	shared := 0
	for _, p := range pa {
		if i := slices.Index(pb, p); i >= 0 {
			shared++
			pb = slices.Delete(pb, i, i+1)
		}
	}
	return 2 * float64(shared) / float64(len(pa)+len(bigrams(b)))
}

func bigrams(s string) []string {
	r := []rune(s)
	var out []string
	for i := 0; i+1 < len(r); i++ {
		out = append(out, string(r[i:i+2]))
	}
	return out
}
