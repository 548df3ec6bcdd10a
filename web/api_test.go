package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory"
)

func TestMemoryAPI(t *testing.T) {
	a := newAPI(t)
	c, ctx := a.c, context.Background()
	s := a.recordDiscordTurn(t, "1", "猫の話", "かわいい")
	mem, err := db.InsertMemory(ctx, a.pool, db.MemoryParams{SessionID: s.ID, Content: "猫について話した", MessageCount: 2,
		PeriodStart: time.Now().Add(-time.Hour), PeriodEnd: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetMemoryTags(ctx, a.pool, mem.ID, []string{"猫", "ペット"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ArchiveMessages(ctx, a.pool, s.ID, []int64{1, 2}, &mem.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	var list []db.MemoryItem
	if code := c.call("GET", "/api/memory?session_id="+itoa(s.ID), nil, &list); code != http.StatusOK || len(list) != 1 ||
		list[0].Content != "猫について話した" || strings.Join(list[0].Tags, ",") != "ペット,猫" || list[0].SessionKey != "discord:channel:1" {
		t.Fatalf("memory = %d %+v", code, list)
	}
	if code := c.call("GET", "/api/memory", nil, &list); code != http.StatusOK || len(list) != 1 {
		t.Errorf("all memory = %d %+v", code, list)
	}
	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/memory?session_id=9999"},
		{"DELETE", "/api/memory/9999"},
	} {
		if code := c.call(tc.method, tc.path, nil, nil); code != http.StatusNotFound {
			t.Errorf("%s %s = %d, want 404", tc.method, tc.path, code)
		}
	}
	if code, e := c.callErr("GET", "/api/memory?session_id=abc", nil); code != http.StatusBadRequest || e.Field != "session_id" {
		t.Errorf("bad session_id = %d %+v", code, e)
	}
	var res map[string]int64
	if code := c.call("DELETE", "/api/memory/"+itoa(mem.ID), nil, &res); code != http.StatusOK || res["restored_messages"] != 2 {
		t.Fatalf("delete = %d %v", code, res)
	}
	// The archived turn is back in the context.
	ms := dbtest.RecentMessages(t, a.pool, "discord:channel:1", 10)
	if len(ms) != 2 {
		t.Errorf("%d messages back in the context, want 2", len(ms))
	}
}

func TestKnowledgeAPI(t *testing.T) {
	a := newAPI(t)
	c, ctx := a.c, context.Background()
	e, err := db.InsertKnowledge(ctx, a.pool, db.KnowledgeParams{Space: "web", Title: "東京の天気", Body: "晴れ", Query: "東京 天気", Tool: "web_search",
		Sources: []db.KnowledgeSource{{URL: "https://example.com/a", Title: "A"}}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(a.kbDir, "web_search", "tenki.md")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("# 東京の天気\n晴れ"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := db.SetKnowledgeFile(ctx, a.pool, e.ID, "web_search/tenki.md"); err != nil {
		t.Fatal(err)
	}
	var list []knowledgeJSON
	if code := c.call("GET", "/api/knowledge", nil, &list); code != http.StatusOK || len(list) != 1 || list[0].Title != "東京の天気" {
		t.Fatalf("list = %d %+v", code, list)
	}
	var one knowledgeJSON
	if code := c.call("GET", "/api/knowledge/"+itoa(e.ID), nil, &one); code != http.StatusOK || one.Body != "晴れ" ||
		len(one.Sources) != 1 || one.Sources[0].URL != "https://example.com/a" {
		t.Fatalf("get = %d %+v", code, one)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if code := c.call(m, "/api/knowledge/9999", nil, nil); code != http.StatusNotFound {
			t.Errorf("%s unknown = %d", m, code)
		}
	}
	if code := c.call("DELETE", "/api/knowledge/"+itoa(e.ID), nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete = %d", code)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the entry's file is still there: %v", err)
	}
	if code := c.call("GET", "/api/knowledge/"+itoa(e.ID), nil, nil); code != http.StatusNotFound {
		t.Errorf("get after delete = %d", code)
	}
}

func TestKnowledgeBaseAPI(t *testing.T) {
	a := newAPI(t)
	c := a.c
	if err := os.MkdirAll(filepath.Join(a.kbDir, "guides"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"faq.md": "# よくある質問\n猫は好き", "guides/setup.md": "# 設定\n手順"} {
		if err := os.WriteFile(filepath.Join(a.kbDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(filepath.Dir(a.kbDir), "secret.md")
	if err := os.WriteFile(secret, []byte("秘密"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(a.kbDir, "link.md")); err != nil {
		t.Fatal(err)
	}
	var st struct {
		EmbedModel string `json:"embed_model"`
		Files      []struct {
			Path    string `json:"path"`
			Size    int64  `json:"size"`
			Indexed bool   `json:"indexed"`
		} `json:"files"`
		LastSync  time.Time `json:"last_sync"`
		TotalSize int64     `json:"total_size"`
	}
	if code := c.call("GET", "/api/knowledge-base", nil, &st); code != http.StatusOK || len(st.Files) < 2 || st.Files[0].Indexed || !st.LastSync.IsZero() {
		t.Fatalf("before sync = %d %+v", code, st)
	}
	if code := c.call("POST", "/api/knowledge-base/sync", nil, &st); code != http.StatusOK || st.LastSync.IsZero() || st.EmbedModel != "bge-m3" {
		t.Fatalf("sync = %d %+v", code, st)
	}
	indexed := map[string]bool{}
	for _, f := range st.Files {
		indexed[f.Path] = f.Indexed
	}
	if !indexed["faq.md"] || !indexed["guides/setup.md"] || st.TotalSize == 0 {
		t.Errorf("after sync: %+v", st)
	}
	var file map[string]string
	if code := c.call("GET", "/api/knowledge-base/file?path=guides/setup.md", nil, &file); code != http.StatusOK || file["content"] != "# 設定\n手順" {
		t.Errorf("file = %d %v", code, file)
	}
	for _, p := range []string{"../secret.md", "guides/../../secret.md", "guides/../faq.md", "/etc/passwd", "link.md", "", `..\secret.md`} {
		if code, e := c.callErr("GET", "/api/knowledge-base/file?path="+p, nil); code != http.StatusBadRequest || e.Field != "path" {
			t.Errorf("path %q = %d %+v, want 400", p, code, e)
		}
	}
	if code := c.call("GET", "/api/knowledge-base/file?path=nope.md", nil, nil); code != http.StatusNotFound {
		t.Errorf("missing file = %d", code)
	}
}

func TestLogsAPI(t *testing.T) {
	a := newAPI(t)
	c, ctx := a.c, context.Background()
	for i := range 5 {
		if err := db.InsertAPILog(ctx, a.pool, db.APILogParams{Model: testModel, Request: map[string]int{"n": i}, Response: "答え",
			Latency: time.Duration(i) * time.Millisecond, PromptTokens: 10, SessionKey: "web:x"}); err != nil {
			t.Fatal(err)
		}
	}
	var page1, page2 logsResponse
	if code := c.call("GET", "/api/logs?limit=3", nil, &page1); code != http.StatusOK || len(page1.Logs) != 3 || page1.NextBefore != page1.Logs[2].ID ||
		page1.Logs[0].ID != 5 || page1.Logs[0].SessionKey != "web:x" {
		t.Fatalf("page 1 = %d %+v", code, page1)
	}
	if code := c.call("GET", "/api/logs?limit=3&before="+itoa(page1.NextBefore), nil, &page2); code != http.StatusOK || len(page2.Logs) != 2 || page2.NextBefore != 0 || page2.Logs[0].ID != 2 {
		t.Fatalf("page 2 = %d %+v", code, page2)
	}
	var one apiLogJSON
	var req map[string]int
	if code := c.call("GET", "/api/logs/3", nil, &one); code != http.StatusOK || json.Unmarshal(one.Request, &req) != nil || req["n"] != 2 || one.Response != "答え" {
		t.Errorf("one = %d %+v %s", code, one, one.Request)
	}
	for _, q := range []string{"before=x", "limit=-1"} {
		name, _, _ := strings.Cut(q, "=")
		if code, e := c.callErr("GET", "/api/logs?"+q, nil); code != http.StatusBadRequest || e.Field != name {
			t.Errorf("%s = %d %+v", q, code, e)
		}
	}
	if code := c.call("DELETE", "/api/logs/3", nil, nil); code != http.StatusNoContent {
		t.Errorf("delete = %d", code)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if code := c.call(m, "/api/logs/3", nil, nil); code != http.StatusNotFound {
			t.Errorf("%s deleted = %d", m, code)
		}
	}
}

func TestRemindersAPI(t *testing.T) {
	a := newAPI(t)
	c, ctx := a.c, context.Background()
	due := time.Now().Add(time.Hour)
	pending, _ := db.CreateReminder(ctx, a.pool, db.ReminderParams{ChannelID: "c", UserID: "u1", Content: "ゴミ出し", DueAt: due})
	past, _ := db.CreateReminder(ctx, a.pool, db.ReminderParams{ChannelID: "c", UserID: "u2", Content: "会議", DueAt: due.Add(-2 * time.Hour)})
	if err := db.RecordOutcome(ctx, a.pool, db.Outcome{Delivery: db.Delivery{ReminderID: past.ID, Occurrence: past.DueAt,
		HandledAt: time.Now(), MessageID: "m1"}, Occurrences: 1, Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	var list []reminderJSON
	if code := c.call("GET", "/api/reminders", nil, &list); code != http.StatusOK || len(list) != 2 || list[0].Status != "pending" || list[1].Status != "delivered" {
		t.Fatalf("list = %d %+v", code, list)
	}
	var r reminderJSON
	if code := c.call("POST", "/api/reminders/"+itoa(pending.ID)+"/cancel", nil, &r); code != http.StatusOK || r.Status != "cancelled" {
		t.Errorf("cancel another user's = %d %+v", code, r)
	}
	if code := c.call("POST", "/api/reminders/"+itoa(past.ID)+"/cancel", nil, nil); code != http.StatusConflict {
		t.Errorf("cancel a delivered one = %d, want 409", code)
	}
	if code := c.call("POST", "/api/reminders/9999/cancel", nil, nil); code != http.StatusNotFound {
		t.Errorf("cancel unknown = %d", code)
	}
}

func TestSettingsAPI(t *testing.T) {
	a := newAPI(t)
	c := a.c
	get := func() map[string]settingJSON {
		var res settingsResponse
		if code := c.call("GET", "/api/settings", nil, &res); code != http.StatusOK {
			t.Fatalf("settings = %d", code)
		}
		m := map[string]settingJSON{}
		for _, s := range res.Settings {
			m[s.Key] = s
		}
		return m
	}
	s := get()
	if k := s["tavily_api_key"]; !k.Secret || strings.Contains(k.Value, "environment-secret") || !strings.HasSuffix(k.Value, "cret") || k.Source != "env" {
		t.Errorf("secret shown as %+v", k)
	}
	if m := s["default_model"]; m.Value != testModel || m.Source != "env" || m.Applies != "now" || s["weather_cron"].Applies != "restart" {
		t.Errorf("default_model %+v, weather_cron %+v", m, s["weather_cron"])
	}
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{"default_model": "gemma3", "search_backend": "bing"}, "search_backend"},
		{map[string]any{"default_model": ""}, "default_model"},
		{map[string]any{"no_such_setting": "x"}, "no_such_setting"},
		{`{"default_model": 3}`, "default_model"},
	} {
		if code, e := c.callErr("PUT", "/api/settings", tc.body); code != http.StatusBadRequest || e.Field != tc.field {
			t.Errorf("PUT %v = %d %+v, want 400 naming %s", tc.body, code, e, tc.field)
		}
	}
	if get()["default_model"].Value != testModel {
		t.Fatal("a refused PUT changed a value")
	}
	// The masked secret sent back unchanged keeps the secret.
	masked := s["tavily_api_key"].Value
	if code := c.call("PUT", "/api/settings", map[string]any{"default_model": "gemma3", "tavily_api_key": masked}, nil); code != http.StatusOK {
		t.Fatal(code)
	}
	s = get()
	if s["default_model"].Value != "gemma3" || s["default_model"].Source != "page" || s["default_model"].Default != testModel {
		t.Errorf("after PUT: %+v", s["default_model"])
	}
	if a.opts.Deps.Settings.Get("tavily_api_key") != "tvly-environment-secret" || s["tavily_api_key"].Source != "env" {
		t.Errorf("the masked value replaced the secret: %q", a.opts.Deps.Settings.Get("tavily_api_key"))
	}
	// It survives a restart (a new Settings on the same database), and null resets it.
	again, err := NewSettings(context.Background(), a.pool, a.opts.Deps.Settings.defs)
	if err != nil || again.Get("default_model") != "gemma3" {
		t.Errorf("after a restart: %q %v", again.Get("default_model"), err)
	}
	var changed []string
	a.opts.Deps.Settings.OnChange(func(k, v string) { changed = append(changed, k+"="+v) })
	if code := c.call("PUT", "/api/settings", `{"default_model": null}`, nil); code != http.StatusOK {
		t.Fatal(code)
	}
	if s = get(); s["default_model"].Value != testModel || s["default_model"].Source != "env" || strings.Join(changed, " ") != "default_model="+testModel {
		t.Errorf("after reset: %+v, changes seen %v", s["default_model"], changed)
	}
}

func TestSystemAndModelsAPI(t *testing.T) {
	a := newAPI(t)
	c := a.c
	var words struct {
		Words []string `json:"words"`
	}
	if code := c.call("GET", "/api/system/word-pool?space=guild:1", nil, &words); code != http.StatusOK || strings.Join(words.Words, ",") != "猫,ラーメン" {
		t.Errorf("word pool of guild:1 = %d %+v", code, words)
	}
	if code := c.call("GET", "/api/system/word-pool?space=guild:2", nil, &words); code != http.StatusOK || len(words.Words) != 0 {
		t.Errorf("word pool of guild:2 = %d %+v, want its own (empty)", code, words)
	}
	if code := c.call("GET", "/api/system/word-pool?space=guild/1", nil, nil); code != http.StatusBadRequest {
		t.Errorf("word pool of a malformed space = %d, want 400", code)
	}
	// Messages stored by an older yorozu, without tags.
	s, err := db.UpsertSession(context.Background(), a.pool, db.SessionParams{Key: "discord:channel:1", Source: "discord", Space: "guild:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.InsertMessage(context.Background(), a.pool, db.MessageParams{SessionID: s.ID, Role: db.RoleUser, Content: "ラーメンが食べたい"}); err != nil {
		t.Fatal(err)
	}
	var q map[string]int
	if code := c.call("POST", "/api/system/backfill-tags", nil, &q); code != http.StatusAccepted || q["queued"] < 1 {
		t.Errorf("backfill = %d %v", code, q)
	}
	a.ollama.AddModel("gemma3", "completion")
	c.call("POST", "/api/models/presets", presetRequest{Label: "軽量", Model: "gemma3"}, nil)
	var m modelsResponse
	if code := c.call("GET", "/api/models", nil, &m); code != http.StatusOK || m.Default != testModel ||
		!strings.Contains(strings.Join(m.Installed, ","), "gemma3:latest,"+testModel) || len(m.Presets) != 1 ||
		slices.Contains(m.Installed, memory.DefaultEmbedModel) || slices.Contains(m.Installed, memory.DefaultEmbedModel+":latest") {
		// The embedding model cannot chat: the chat's picker leaves it out.
		t.Errorf("models = %d %+v", code, m)
	}
	var st struct {
		Checks []checkResult `json:"checks"`
	}
	if code := c.call("GET", "/api/status", nil, &st); code != http.StatusOK || st.Checks == nil {
		t.Errorf("status = %d %+v", code, st)
	}
}
