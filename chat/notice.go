package chat

import (
	"fmt"

	"github.com/yorozu-bot/yorozu/llm"
)

// MissingModelNotice is what a user (on Discord or the admin page) is told
// when err says a model is not pulled: the model's name and the exact
// command that installs it. ok is false for any other error.
func MissingModelNotice(err error) (notice string, ok bool) {
	m, ok := llm.MissingModel(err)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("モデル %s が見つかりません。サーバーで `%s` を実行してください。", m.Model, m.PullCommand()), true
}
