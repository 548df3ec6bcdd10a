package main

import (
	"context"

	"github.com/yorozu-bot/yorozu/memory"
)

// tipTopics gives the tips job a topic from what was said lately in the
// space of its channel: memory's tags, else its word pool.
type tipTopics struct{ m *memory.Memory }

func (t tipTopics) RecentTopic(ctx context.Context, space string) (string, error) {
	return t.m.RecentTopic(ctx, memory.Space(space))
}
