package disasterinfo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/tools/disasterinfo"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

var jst = time.FixedZone("JST", 9*3600)

func TestDisasterInfoAnswersFromStoredEvents(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	now := time.Now()
	reported := now.Add(-10 * time.Minute)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e, err := db.LockDisasterEvent(ctx, tx, db.DisasterQuake, "20260110090012")
	if err != nil {
		t.Fatal(err)
	}
	e.Report, e.ReportedAt, e.Title, e.Active = "r1", &reported, "石川県能登地方 M5.6 最大震度5強", true
	e.Content, e.MessageID = "<@&42> 📢 地震情報 最大震度5強\n震源：石川県能登地方", "1"
	if err := db.SaveDisasterEvent(ctx, tx, e); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tool := disasterinfo.Tool(pool, jst, func() time.Time { return now })
	call := func(args string) string {
		t.Helper()
		out, err := tool.Execute(ctx, json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	if err := db.RecordDisasterPoll(ctx, pool, "quake", now.Add(-time.Minute), ""); err != nil {
		t.Fatal(err)
	}
	out := call(`{"kind":"quake"}`)
	for _, want := range []string{"石川県能登地方 M5.6 最大震度5強", reported.In(jst).Format("1月2日 15:04") + "発表", "確認済み"} {
		if !strings.Contains(out, want) {
			t.Errorf("answer lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "<@&42>") {
		t.Errorf("the role ping reached the model:\n%s", out)
	}
	if out := call(`{"kind":"tsunami"}`); !strings.Contains(out, "津波の情報はありません") {
		t.Errorf("no tsunami:\n%s", out)
	}

	// JMA unreachable: the answer says so instead of pretending all is quiet.
	if err := db.RecordDisasterPoll(ctx, pool, "tsunami", now, "jma unavailable: 503"); err != nil {
		t.Fatal(err)
	}
	out = call(`{}`)
	if !strings.Contains(out, "いま気象庁の情報を取得できていません（津波）") || !strings.Contains(out, "推測せず") {
		t.Errorf("unreachable JMA not said:\n%s", out)
	}
}
