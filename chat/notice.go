package chat

import (
	"errors"
	"fmt"
	"time"

	"github.com/yorozu-bot/yorozu/llm"
)

// MissingModelNotice is what a user (on Discord or the admin page) is told
// when err says a model is missing: the model's name and the exact
// command that installs it on Ollama, or, on an OpenAI-compatible server
// (which has no pull), what to do there. ok is false for any other error.
func MissingModelNotice(err error) (notice string, ok bool) {
	m, ok := llm.MissingModel(err)
	if !ok {
		return "", false
	}
	if m.Server != "" {
		return fmt.Sprintf("モデル %s がモデルサーバーにありません。サーバーでそのモデルを読み込むか、サーバーにあるモデルを設定してください。", m.Model), true
	}
	return fmt.Sprintf("モデル %s が見つかりません。サーバーで `%s` を実行してください。", m.Model, m.PullCommand()), true
}

// ServerNotice is what a user is told when a model server answered but
// would not serve the turn: it refused the API key (the variable to check
// is named), it is busy (with the wait it asked for), it answered something
// that is not its API, or the model refused the images. ok is false for
// any other error.
func ServerNotice(err error) (notice string, ok bool) {
	var (
		key    *llm.KeyRefusedError
		busy   *llm.BusyError
		bad    *llm.BadAnswerError
		images *llm.ImagesRefusedError
	)
	switch {
	case errors.As(err, &key):
		return fmt.Sprintf("モデルサーバーが API キーを受け付けませんでした（%d）。管理者は %s の設定を確認してください。", key.Status, key.KeyVar), true
	case errors.As(err, &busy):
		if s := int((busy.RetryAfter + time.Second - 1) / time.Second); s > 0 {
			return fmt.Sprintf("モデルサーバーが混み合っています。%d 秒ほどしてからもう一度お試しください。", s), true
		}
		return "モデルサーバーが混み合っています。しばらくしてからもう一度お試しください。", true
	case errors.As(err, &bad):
		return "モデルサーバーから API ではない応答（HTML のページなど）が返りました。管理者はサーバーのアドレス（OPENAI_BASE_URL など、ふつうは /v1 で終わります）を確認してください。", true
	case errors.As(err, &images):
		return fmt.Sprintf("モデル %s は画像を受け付けませんでした。画像なしでもう一度送るか、画像に対応したモデルを選んでください。", images.Model), true
	}
	return "", false
}
