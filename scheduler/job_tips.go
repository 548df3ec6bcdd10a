package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"

	"github.com/ollama/ollama/api"
	"golang.org/x/text/unicode/norm"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
)

// ErrQuietHour is returned by Tips.Post between 03:00 and 03:59: no tips
// then.
var ErrQuietHour = errors.New("no tips between 03:00 and 03:59")

// ErrNoDestination is returned by Tips.Post while no webhook or channel is
// set for tips.
var ErrNoDestination = errors.New("no tips destination set")

// ErrRepeatedTip is returned when every tip the model wrote repeated one of
// the recent ones.
var ErrRepeatedTip = errors.New("the model only repeated recent tips")

// recentTips is how many posted tips a new one must differ from.
const recentTips = 30

// maxTip bounds a tip's length in characters.
const maxTip = 400

// TopicSource gives a topic from what was said lately in a space ("" when
// nothing was).
type TopicSource interface {
	RecentTopic(ctx context.Context, space string) (string, error)
}

// fallbackTopics are used while nothing has been said yet.
var fallbackTopics = []string{"コーヒー", "猫", "傘", "消しゴム", "パン", "靴下", "雲", "ペンギン", "冷蔵庫", "おにぎり"}

// TipsOptions configure the tips job. Zero values get the documented
// defaults.
type TipsOptions struct {
	Topics   TopicSource // recent tags and words; nil uses a few fixed topics
	Pipeline Pipeline    // required: the model writes the tip
	Model    string      // DEFAULT_MODEL
	Dest     Destination // none: nothing is posted until Apply sets one
	// Space gives the space of Dest's channel, whose tips history is
	// compared against (TIPS_SPACE for a webhook). nil: "".
	Space    func(ctx context.Context) (string, error)
	DB       db.Querier // posted tips and slots; required
	Cron     string     // TIPS_CRON; default "0 */3 * * *"
	Location *time.Location
	// Attempts is how many tips the model may write to find one that is
	// not a repeat; default 3.
	Attempts int
	// Timeout bounds the model's writing; default 2 min.
	Timeout time.Duration
	Rand    *rand.Rand       // default the global source
	Now     func() time.Time // default time.Now
	Logger  *slog.Logger     // default slog.Default()
}

// Tips writes and posts "どうでもいいTips".
type Tips struct {
	o    TipsOptions
	live *livePost // Dest, Model and Cron in force
}

// NewTips returns the tips job.
func NewTips(o TipsOptions) *Tips {
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Logger = o.Logger.With(slog.String("job", JobTips))
	return &Tips{o: o, live: newLivePost(JobTips, "0 */3 * * *", PostSettings{Dest: o.Dest, Model: o.Model, Cron: o.Cron})}
}

// Apply puts changed settings in force (the admin page): the next tip goes
// to p.Dest, is written by p.Model and, when p.Cron changed, runs on the new
// schedule. A bad schedule changes nothing.
func (t *Tips) Apply(p PostSettings) error { return t.live.apply(p) }

// Settings returns the settings in force.
func (t *Tips) Settings() PostSettings { return t.live.get() }

// Enabled reports whether tips have somewhere to go.
func (t *Tips) Enabled() bool { return t.live.get().Dest.Enabled() }

// Register adds the job to s: periodic on the Cron schedule and runnable
// by name (`yorozu jobs run tips`).
func (t *Tips) Register(s *Scheduler) error {
	return t.live.register(s, t.Run)
}

// Run posts one tip on a topic of late (Topics) for the slot at, once
// across processes; nothing is posted in the 03:00 hour. It is a JobFunc.
func (t *Tips) Run(ctx context.Context, at time.Time) error {
	set := t.live.get()
	if !set.Dest.Enabled() {
		t.o.Logger.Info("no destination set: no tip", "slot", at)
		return nil
	}
	if t.quiet(at) || t.quiet(t.o.Now()) {
		t.o.Logger.Info("quiet hour: no tip", "slot", at)
		return nil
	}
	topic := t.topic(ctx)
	return runSlot(ctx, t.o.DB, JobTips, at, t.o.Logger, func(ctx context.Context) (string, error) {
		tip, err := t.write(ctx, set.Model, topic)
		if errors.Is(err, ErrRepeatedTip) {
			t.o.Logger.Warn("no new tip this time", "topic", topic)
			return "", nil
		}
		return tip, err
	}, func(ctx context.Context, tip string) error {
		return t.publish(ctx, set.Dest, topic, tip)
	})
}

// Post writes one tip on topic and posts it now (small talk asks for one).
// It returns the tip as posted.
func (t *Tips) Post(ctx context.Context, topic string) (string, error) {
	set := t.live.get()
	if !set.Dest.Enabled() {
		return "", ErrNoDestination
	}
	if t.quiet(t.o.Now()) {
		return "", ErrQuietHour
	}
	if strings.TrimSpace(topic) == "" {
		topic = t.topic(ctx)
	}
	tip, err := t.write(ctx, set.Model, topic)
	if err != nil {
		return "", err
	}
	if err := t.publish(ctx, set.Dest, topic, tip); err != nil {
		return "", err
	}
	return Format(tip), nil
}

func (t *Tips) quiet(at time.Time) bool { return at.In(t.o.Location).Hour() == 3 }

// topic is one of the topics of late, else a fixed one.
func (t *Tips) topic(ctx context.Context) string {
	if t.o.Topics != nil {
		space, err := t.space(ctx)
		w := ""
		if err == nil {
			w, err = t.o.Topics.RecentTopic(ctx, space)
		}
		if err != nil {
			t.o.Logger.Warn("tip topic from recent tags", "err", err)
		}
		if w != "" {
			return w
		}
	}
	if t.o.Rand != nil {
		return fallbackTopics[t.o.Rand.IntN(len(fallbackTopics))]
	}
	return fallbackTopics[rand.IntN(len(fallbackTopics))]
}

func (t *Tips) space(ctx context.Context) (string, error) {
	if t.o.Space == nil {
		return "", nil
	}
	s, err := t.o.Space(ctx)
	if err != nil {
		return "", fmt.Errorf("space of the tips channel: %w", err)
	}
	return s, nil
}

// Format is a tip as posted.
func Format(tip string) string { return "💡 どうでもいいTips：" + tip }

func (t *Tips) publish(ctx context.Context, dest Destination, topic, tip string) error {
	space, err := t.space(ctx)
	if err != nil {
		return err
	}
	if err := dest.Post(ctx, Format(tip)); err != nil {
		return err
	}
	_, err = db.InsertTip(context.WithoutCancel(ctx), t.o.DB, db.TipParams{
		Space: space, Topic: topic, Content: tip, Normalized: NormalizeTip(tip), PostedAt: t.o.Now(),
	})
	return err
}

const tipPrompt = `あなたは雑学好きのbotです。お題について、役に立たないけれどちょっと面白い` +
	`「どうでもいいTips」を日本語で1つだけ、1〜2文（80字程度）で書いてください。` +
	`前置き・見出し・箇条書き・絵文字は不要。確かでない数字や作り話は書かないこと。`

// write asks the model for a tip on topic that is not one of the recent
// ones (compared normalised).
func (t *Tips) write(ctx context.Context, model, topic string) (string, error) {
	space, err := t.space(ctx)
	if err != nil {
		return "", err
	}
	recent, err := db.RecentTips(ctx, t.o.DB, space, recentTips)
	if err != nil {
		return "", err
	}
	seen := make(map[string]bool, len(recent))
	var avoid strings.Builder
	for _, r := range recent {
		seen[r.Normalized] = true
		fmt.Fprintf(&avoid, "- %s\n", r.Content)
	}
	system := tipPrompt
	if avoid.Len() > 0 {
		system += "\n\n最近投稿したTips（同じ内容は避けてください）：\n" + avoid.String()
	}
	ctx, cancel := context.WithTimeout(llm.WithSpace(ctx, space), t.o.Timeout)
	defer cancel()
	msgs := []api.Message{{Role: "system", Content: system}, {Role: "user", Content: "お題：" + topic}}
	for range t.o.Attempts {
		res, err := t.o.Pipeline.Run(ctx, llm.Request{Model: model, Messages: msgs}, func(llm.Event) error { return nil })
		if err != nil {
			return "", fmt.Errorf("write tip on %q: %w", topic, err)
		}
		tip := cleanTip(res.Content)
		if tip != "" && !seen[NormalizeTip(tip)] {
			return tip, nil
		}
		msgs = append(msgs, api.Message{Role: "assistant", Content: res.Content},
			api.Message{Role: "user", Content: "それは最近投稿したものと同じです。別の内容で1つ書いてください。"})
	}
	return "", fmt.Errorf("write tip on %q: %w", topic, ErrRepeatedTip)
}

// cleanTip trims the model's answer to one short paragraph.
func cleanTip(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "💡")
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "どうでもいいTips："))
	if i := strings.Index(s, "\n\n"); i > 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > maxTip {
		s = string(r[:maxTip-1]) + "…"
	}
	return s
}

// NormalizeTip is the form tips are compared in: NFKC, lower case, without
// spaces, punctuation or symbols.
func NormalizeTip(s string) string {
	s = strings.ToLower(norm.NFKC.String(s))
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) {
			return -1
		}
		return r
	}, s)
}
