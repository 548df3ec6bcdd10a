package health

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/web"
)

// The checks here are shared by serve, which runs them in the background and
// shows them in the log, /readyz and the admin page's status (checker.go),
// and `yorozu doctor`, which prints them as a checklist (doctor.go).

// level is how bad a finding is: the checklist's ✅, ⚠️ or ❌.
type level int

const (
	levelOK   level = iota
	levelWarn       // a degraded part: yorozu works around it (still ready)
	levelFail       // something to fix: not ready; doctor exits non-zero
)

// symbol is how the checklist shows the level.
func (l level) symbol() string {
	switch l {
	case levelWarn:
		return "⚠️"
	case levelFail:
		return "❌"
	}
	return "✅"
}

// finding is the outcome of one check.
type finding struct {
	// group is the /readyz check the finding belongs to ("ollama",
	// "models", "data_dir", …); several findings may share one.
	group string
	// label names what was checked, for the checklist and for telling
	// findings apart ("model qwen3:4b (DEFAULT_MODEL)").
	label string
	level level
	// code is a stable name of the problem for the log's diagnosis key
	// ("ollama_unreachable"); empty when the check passed.
	code string
	// message says what was found, in Japanese and English, on one line.
	message string
	// fix says what to do about a problem, in Japanese and English.
	fix string
	// quiet findings follow from another one (no model can be checked
	// while Ollama is down): /readyz shows them, the log and the checklist
	// do not repeat them.
	quiet bool
}

// text is the finding as one line: what is wrong → what to do. URLs in it
// have their secrets masked, since /readyz is open to anyone.
func (f finding) text() string {
	s := f.message
	if f.fix != "" {
		s += " → " + f.fix
	}
	return oneLine(config.RedactURLs(s))
}

// oneLine puts a message that quotes a multi-line error (pgx lists every
// address it tried) on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\t", " ").Replace(s)
}

// fromDiagnosis is a Discord diagnosis as a finding.
func fromDiagnosis(group, label string, l level, d bot.Diagnosis) finding {
	return finding{group: group, label: label, level: l, code: d.Code, message: d.Message, fix: d.Fix}
}

// groupErr is the /readyz result of the findings of one group: nil when all
// passed, a failure naming every problem (warnings last) when one failed,
// else a degraded part naming the warnings.
func groupErr(fs []finding) error {
	var fails, warns []string
	for _, f := range fs {
		switch f.level {
		case levelFail:
			fails = append(fails, f.text())
		case levelWarn:
			warns = append(warns, f.text())
		}
	}
	switch {
	case len(fails) > 0:
		return errors.New(strings.Join(append(fails, warns...), "; "))
	case len(warns) > 0:
		return web.Degraded(errors.New(strings.Join(warns, "; ")))
	}
	return nil
}

// checkDataDir finds whether DATA_DIR can be written without writing to it:
// the directory, or the nearest existing folder above it that would hold it,
// must be a directory the process may write to (access(2), which also sees
// a read-only mount, even for root), and so must its knowledge_base folder
// when there is one.
func checkDataDir(dir string) finding {
	f := finding{group: "data_dir", label: "DATA_DIR " + dir}
	err := writableDir(dir)
	if err == nil {
		err = writableDir(filepath.Join(dir, "knowledge_base"))
	}
	if err == nil {
		f.message = fmt.Sprintf("DATA_DIR %s に書き込めます / DATA_DIR %s is writable", dir, dir)
		return f
	}
	f.level, f.code = levelFail, "data_dir_not_writable"
	f.message = fmt.Sprintf("DATA_DIR %s に書き込めません / DATA_DIR %s is not writable: %v", dir, dir, err)
	f.fix = "yorozu を動かすユーザーが書き込めるディレクトリを DATA_DIR に設定してください（知識ベースと、DATABASE_URL がなければデータベースが入ります） / " +
		"set DATA_DIR to a directory the user running yorozu can write (it holds the knowledge base, and the database when DATABASE_URL is unset)"
	return f
}

// writableDir reports whether dir is (or could be created as) a directory
// this process may write to.
func writableDir(dir string) error {
	p, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for {
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			return fmt.Errorf("%s is not a directory", p)
		case err == nil:
			if err := unix.Access(p, unix.W_OK|unix.X_OK); err != nil {
				return &fs.PathError{Op: "write", Path: p, Err: err}
			}
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return err // not a directory on the way, no permission to look
		}
		parent := filepath.Dir(p)
		if parent == p {
			return err
		}
		p = parent
	}
}

// modelUse is one model in force and the settings that name it.
type modelUse struct {
	name string
	vars []string // DEFAULT_MODEL, …
	chat bool     // asked to chat (with tools), not only to embed
}

// modelsInForce lists the chat models and the embedding model, each once:
// get returns a setting in force by its admin page key ("default_model"),
// which is the environment's value unless the page changed it.
func modelsInForce(get func(key string) string, embed string) []modelUse {
	var out []modelUse
	add := func(name, variable string, chat bool) {
		for i := range out {
			if out[i].name == name {
				out[i].vars = append(out[i].vars, variable)
				out[i].chat = out[i].chat || chat
				return
			}
		}
		out = append(out, modelUse{name: name, vars: []string{variable}, chat: chat})
	}
	add(get("default_model"), "DEFAULT_MODEL", true)
	add(get("reminder_model"), "REMINDER_MODEL", true)
	add(get("weather_notify_model"), "WEATHER_NOTIFY_MODEL", true)
	add(embed, "EMBED_MODEL", false)
	return out
}

// ollamaChecker is what the Ollama checks ask: whether the server answers,
// and what a model can do (llm.Pipeline's cached /api/show).
type ollamaChecker struct {
	host string // OLLAMA_HOST (or OPENAI_BASE_URL), for the messages
	// openAI says the server is an OpenAI-compatible one (OPENAI_BASE_URL
	// without OLLAMA_HOST): the messages and fixes name it and its
	// variables; a missing model has no `ollama pull`.
	openAI       bool
	version      func(ctx context.Context) (string, error)
	capabilities func(ctx context.Context, model string) (llm.Capabilities, error)
	// probe, when set, checks a pool of several servers instead of the one
	// Ollama: it lists every server's models now.
	probe func(ctx context.Context) []llm.ServerStatus
}

// ollamaCallTimeout bounds each call of the Ollama checks.
const ollamaCallTimeout = 10 * time.Second

// check reports whether Ollama answers, then one finding per model: not
// pulled (with the `ollama pull` to run), a chat model without tool
// support (tools then go through structured output), or fine. The models
// are not checked while Ollama cannot be reached.
func (o ollamaChecker) check(ctx context.Context, models []modelUse) []finding {
	if o.probe != nil {
		return o.checkPool(ctx, models)
	}
	cctx, cancel := context.WithTimeout(ctx, ollamaCallTimeout)
	v, err := o.version(cctx)
	cancel()
	t := o.texts()
	reach := finding{group: "ollama", label: t.label + " " + o.host}
	if err != nil {
		reach.level, reach.code = levelFail, "ollama_unreachable"
		reach.message = fmt.Sprintf("%s接続できません / cannot reach %s at %s: %v", t.jaNi, t.en, o.host, err)
		reach.fix = t.fix
		var key *llm.KeyRefusedError
		if errors.As(err, &key) {
			reach.code = "model_server_key_refused"
			reach.fix = key.KeyVar + " を正しい API キーにしてください / set " + key.KeyVar + " to a valid API key"
		}
		return []finding{reach, {group: "models", label: "models", level: levelFail, code: "models_not_checked", quiet: true,
			message: fmt.Sprintf("%s接続できないためモデルを確かめられません / the models cannot be checked while %s is unreachable", t.jaNi, t.en)}}
	}
	reach.message = fmt.Sprintf("%s %s に接続できます（%s） / %s at %s answers (%s)", t.ja, o.host, t.version(v), t.en, o.host, t.version(v))
	out := []finding{reach}
	for _, m := range models {
		out = append(out, o.checkModel(ctx, m))
	}
	return out
}

// probeUnlessOneOllama checks pool server by server, unless it is one
// Ollama (asked its version, as before there were pools).
func (o *ollamaChecker) probeUnlessOneOllama(pool *llm.Pool) {
	if st := pool.Status(); len(st) > 1 || st[0].Kind != config.KindOllama {
		o.probe = pool.Probe
	}
}

// checkPool reports each server of the pool: one that cannot be reached
// while another answers is a degraded part (turns go to the others); none
// answering is a failure, and the models are not checked.
func (o ollamaChecker) checkPool(ctx context.Context, models []modelUse) []finding {
	cctx, cancel := context.WithTimeout(ctx, ollamaCallTimeout)
	servers := o.probe(cctx)
	cancel()
	up := 0
	for _, s := range servers {
		if s.Up {
			up++
		}
	}
	var out []finding
	for _, s := range servers {
		f := finding{group: "ollama", label: "model server " + s.Name}
		if s.Up {
			f.message = fmt.Sprintf("モデルサーバー %s（%s）に接続できます（モデル %d 個、スロット %d） / model server %s (%s) answers (%d models, %d slots)",
				s.Name, s.Kind, len(s.Models), s.Slots, s.Name, s.Kind, len(s.Models), s.Slots)
			out = append(out, f)
			continue
		}
		f.level, f.code = levelWarn, "model_server_down"
		f.message = fmt.Sprintf("モデルサーバー %s に接続できません（ほかのサーバーが答えます） / model server %s is unreachable (the others answer): %v", s.Name, s.Name, s.Err)
		if up == 0 {
			f.level, f.code = levelFail, "model_servers_unreachable"
			f.message = fmt.Sprintf("モデルサーバー %s に接続できません / model server %s is unreachable: %v", s.Name, s.Name, s.Err)
		}
		f.fix = "サーバーを起動するか、そのアドレス（MODEL_SERVERS、OLLAMA_HOST または OPENAI_BASE_URL）を直してください / " +
			"start the server or fix its address (MODEL_SERVERS, OLLAMA_HOST or OPENAI_BASE_URL)"
		if key := (*llm.KeyRefusedError)(nil); errors.As(s.Err, &key) {
			f.fix = key.KeyVar + " を正しい API キーにしてください / set " + key.KeyVar + " to a valid API key"
		}
		out = append(out, f)
	}
	if up == 0 {
		return append(out, finding{group: "models", label: "models", level: levelFail, code: "models_not_checked", quiet: true,
			message: "モデルサーバーに接続できないためモデルを確かめられません / the models cannot be checked while no model server answers"})
	}
	for _, m := range models {
		out = append(out, o.checkModel(ctx, m))
	}
	return out
}

// PoolCheck is the /readyz check of the slots shared with other processes:
// degraded while the database cannot lease them (each process then uses
// its own slots only).
func PoolCheck(pool *llm.Pool) web.Check {
	return web.Check{Name: "model_slots", Fn: func(context.Context) error {
		if err := pool.LeaseErr(); err != nil {
			return web.Degraded(fmt.Errorf("モデルサーバーのスロットをほかのプロセスと共有できません（このプロセスのスロットだけで答えます） / "+
				"the model servers' slots cannot be shared with other processes (this process uses its own only): %w", err))
		}
		return nil
	}}
}

// serverTexts are how the checks name a kind of server.
type serverTexts struct {
	label, ja, en, fix string
	jaNi               string // ja with the particle に, spaced as Japanese text wants
	version            func(v string) string
}

func (o ollamaChecker) texts() serverTexts {
	if o.openAI {
		return serverTexts{label: "model server", ja: "モデルサーバー", jaNi: "モデルサーバーに", en: "the model server",
			fix: "モデルサーバー（llama-server、vLLM など）を起動するか、OPENAI_BASE_URL をそのアドレス（ふつうは /v1 で終わる）にしてください / " +
				"start the model server (llama-server, vLLM, …) or set OPENAI_BASE_URL to its address (usually ending in /v1)",
			version: func(v string) string { return v }}
	}
	return serverTexts{label: "Ollama", ja: "Ollama", jaNi: "Ollama に", en: "Ollama",
		fix: "Ollama を起動するか（ollama serve、またはそのサービス）、OLLAMA_HOST を Ollama のアドレスにしてください / " +
			"start Ollama (ollama serve, or its service) or set OLLAMA_HOST to where it runs",
		version: func(v string) string { return "version " + v }}
}

func (o ollamaChecker) checkModel(ctx context.Context, m modelUse) finding {
	vars := strings.Join(m.vars, ", ")
	f := finding{group: "models", label: fmt.Sprintf("model %s (%s)", m.name, vars)}
	cctx, cancel := context.WithTimeout(ctx, ollamaCallTimeout)
	caps, err := o.capabilities(cctx, m.name)
	cancel()
	if missing, ok := llm.MissingModel(err); ok {
		f.level, f.code = levelFail, "model_not_pulled"
		f.message = fmt.Sprintf("モデル %s（%s）がありません / model %s (%s) is not pulled", m.name, vars, m.name, vars)
		f.fix = "Ollama のサーバーで実行してください / run on the Ollama server: " + missing.PullCommand()
		if missing.Server != "" {
			f.fix = "モデルサーバーでモデルを読み込むか、" + vars + " をサーバーの /v1/models にある名前にしてください / " +
				"load the model on the server, or set " + vars + " to a name its /v1/models lists"
		}
		return f
	}
	if err != nil {
		f.level, f.code = levelFail, "model_check_failed"
		f.message = fmt.Sprintf("モデル %s（%s）を確かめられません / could not check model %s (%s): %v", m.name, vars, m.name, vars, err)
		f.fix = "Ollama のログを確認してください / check Ollama's log"
		if o.openAI {
			f.fix = "モデルサーバーのログを確認してください / check the model server's log"
		}
		return f
	}
	// An Ollama too old to report capabilities reports none: say nothing.
	if m.chat && len(caps.All) > 0 && !caps.Tools {
		f.level, f.code = levelWarn, "model_without_tools"
		f.message = fmt.Sprintf("モデル %s（%s）はツール呼び出しに対応していません / model %s (%s) has no tool support", m.name, vars, m.name, vars)
		f.fix = "ツールは構造化出力（JSON）で呼び出すので、このままでも使えます。ツール対応のモデル（qwen3 など）のほうが確実です / " +
			"tools go through structured output (JSON) instead, so it works as it is; a model with tool support (such as qwen3) is more reliable"
		return f
	}
	f.message = fmt.Sprintf("モデル %s（%s）があります / model %s (%s) is pulled", m.name, vars, m.name, vars)
	if len(caps.All) > 0 {
		f.message += " (" + strings.Join(caps.All, ", ") + ")"
	}
	return f
}
