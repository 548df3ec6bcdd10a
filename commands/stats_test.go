package commands

import (
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

func TestStatsReply(t *testing.T) {
	tests := []struct {
		name string
		n    statsNumbers
		want string
	}{
		{"a quiet hour", statsNumbers{}, "**直近1時間**\n応答 0 件\n答え始めるまで —\n生成 入力 0／出力 0 トークン\nいまの順番待ち 0 件\nリマインダー 0 件お届け"},
		{"a busy hour", statsNumbers{
			local:     LiveStats{TextTurns: 40, FirstTextP50: 2140 * time.Millisecond, FirstTextP95: 125 * time.Second, TokensPerSecond: 18.44, QueueLength: 2},
			turns:     db.TurnCounts{Turns: 42, Failed: 3, PromptTokens: 1234567, CompletionTokens: 2345},
			reminders: db.ReminderCounts{Delivered: 5, Late: 1, Failed: 1},
		}, "**直近1時間**\n応答 42 件（エラー 3 件）\n答え始めるまで 中央値 2.1 秒・95% 2 分 05 秒\n生成 18.4 トークン/秒・入力 1,234,567／出力 2,345 トークン\nいまの順番待ち 2 件\nリマインダー 5 件お届け（遅れ 1 件）・届けられず 1 件"},
		{"whole seconds from 10 s", statsNumbers{local: LiveStats{TextTurns: 1, FirstTextP50: 12400 * time.Millisecond, FirstTextP95: 12400 * time.Millisecond}},
			"**直近1時間**\n応答 0 件\n答え始めるまで 中央値 12 秒・95% 12 秒\n生成 入力 0／出力 0 トークン\nいまの順番待ち 0 件\nリマインダー 0 件お届け"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := statsReply(tc.n); got != tc.want {
				t.Errorf("statsReply =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
