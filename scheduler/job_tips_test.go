package scheduler

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

type fixedTopic string

func (f fixedTopic) RecentTopic(context.Context, string) (string, error) { return string(f), nil }

var _ TopicSource = fixedTopic("")

func newTipsEnv(t *testing.T, now string) (*Tips, *ollamatest.Server, *discordtest.Server, TipsOptions) {
	t.Helper()
	pool := newPool(t)
	srv, pipe := newLLM(t)
	d := discordtest.New(t)
	d.AddWebhook("901", "tips-token", "666")
	o := TipsOptions{
		Topics: fixedTopic("猫"), Pipeline: pipe, Model: testModel,
		Dest: Destination{WebhookURL: d.URL() + "api/v10/webhooks/901/tips-token"},
		DB:   pool, Location: jst, Now: fixedNow(now), Logger: quiet(),
	}
	return NewTips(o), srv, d, o
}

func TestTipsPostOnPoolTopic(t *testing.T) {
	tips, srv, d, _ := newTipsEnv(t, "2025-06-10 12:00")
	srv.Script(ollamatest.Text("猫は一日の大半を寝て過ごします。"))
	if err := tips.Run(context.Background(), fixedNow("2025-06-10 12:00")()); err != nil {
		t.Fatal(err)
	}
	msgs := d.Messages("666")
	if len(msgs) != 1 || msgs[0].Content != "💡 どうでもいいTips：猫は一日の大半を寝て過ごします。" {
		t.Fatalf("messages %+v", msgs)
	}
	if am := msgs[0].AllowedMentions; am == nil || len(am.Parse) != 0 {
		t.Errorf("allowed mentions %+v", am)
	}
	if req := srv.Requests()[0]; !strings.Contains(req.Messages[1].Content, "猫") {
		t.Errorf("topic not given to the model: %+v", req.Messages)
	}
}

func TestTipsQuietAtThree(t *testing.T) {
	tips, srv, d, _ := newTipsEnv(t, "2025-06-10 03:00")
	if err := tips.Run(context.Background(), fixedNow("2025-06-10 03:00")()); err != nil {
		t.Fatal(err)
	}
	if _, err := tips.Post(context.Background(), "猫"); !errors.Is(err, ErrQuietHour) {
		t.Errorf("Post at 03:00: err = %v, want ErrQuietHour", err)
	}
	tips2, _, _, _ := newTipsEnv(t, "2025-06-10 03:59")
	if err := tips2.Run(context.Background(), fixedNow("2025-06-10 03:59")()); err != nil {
		t.Fatal(err)
	}
	if srv.ChatCalls() != 0 || len(d.Messages("666")) != 0 {
		t.Fatalf("tips in the quiet hour: %d model calls, %d posts", srv.ChatCalls(), len(d.Messages("666")))
	}
}

func TestTipsNotRepeated(t *testing.T) {
	tips, srv, d, o := newTipsEnv(t, "2025-06-10 12:00")
	ctx := context.Background()
	old := "猫は一日の大半を寝て過ごします。"
	if _, err := db.InsertTip(ctx, o.DB, db.TipParams{Topic: "猫", Content: old, Normalized: NormalizeTip(old),
		PostedAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	// The model first repeats it with other spacing, punctuation and width.
	srv.Script(ollamatest.Text("猫は 一日の大半を、寝て過ごします！"), ollamatest.Text("猫のひげは幅を測るセンサーです。"))
	if err := tips.Run(ctx, fixedNow("2025-06-10 12:00")()); err != nil {
		t.Fatal(err)
	}
	msgs := d.Messages("666")
	if len(msgs) != 1 || !strings.HasSuffix(msgs[0].Content, "猫のひげは幅を測るセンサーです。") {
		t.Fatalf("messages %+v, want the new tip only", msgs)
	}
	reqs := srv.Requests()
	if !strings.Contains(reqs[0].Messages[0].Content, old) {
		t.Error("the recent tips were not shown to the model")
	}

	// A model that only repeats posts nothing.
	srv.Handle(func(api.ChatRequest) ollamatest.Reply {
		return ollamatest.Text("猫のひげは幅を測るセンサーです")
	})
	if err := tips.Run(ctx, fixedNow("2025-06-10 15:00")()); err != nil {
		t.Fatal(err)
	}
	if n := len(d.Messages("666")); n != 1 {
		t.Fatalf("%d posts, want no repeat posted", n)
	}
	if _, err := tips.Post(ctx, "猫"); !errors.Is(err, ErrRepeatedTip) {
		t.Errorf("Post: err = %v, want ErrRepeatedTip", err)
	}
}

func TestTipsLLMDownFailsRun(t *testing.T) {
	tips, srv, d, _ := newTipsEnv(t, "2025-06-10 12:00")
	srv.Down()
	if err := tips.Run(context.Background(), fixedNow("2025-06-10 12:00")()); err == nil {
		t.Fatal("no model: the run should fail so River retries it")
	}
	if n := len(d.Messages("666")); n != 0 {
		t.Fatalf("%d posts without a model", n)
	}
}

func TestNormalizeTip(t *testing.T) {
	for _, tc := range [][2]string{
		{"猫は 一日の大半を、寝て過ごします！", "猫は一日の大半を寝て過ごします"},
		{"ＡＢＣは Abc.", "abcはabc"},
		{"💡　コーヒー豆は種", "コーヒー豆は種"},
	} {
		if got := NormalizeTip(tc[0]); got != tc[1] {
			t.Errorf("NormalizeTip(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
}
