package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/scheduler"
)

const (
	doctorWebhookID = "500000000000000009"
	doctorHookToken = "doctor-hook-secret"
)

// doctorWorld is everything `yorozu doctor` looks at, faked at the network
// edge and working: Discord (with a channel for the weather post in a
// server, and a webhook for tips), Ollama with the default models, a
// SearXNG, JMA and an MCP server.
type doctorWorld struct {
	discord *discordtest.Server
	ollama  *ollamatest.Server
	searx   *httptest.Server
	env     map[string]string
}

func newDoctorWorld(t *testing.T, dbURL, jmaURL, mcpURL string) *doctorWorld {
	t.Helper()
	w := &doctorWorld{discord: discordtest.New(t), ollama: ollamatest.New(t)}
	w.ollama.AddModel(model, "completion", "tools")
	w.ollama.AddModel(embedModel, "embedding")
	w.discord.AddChannel(channelID)
	w.discord.PutChannelInGuild(channelID, discordtest.DefaultGuildID)
	w.discord.AddWebhook(doctorWebhookID, doctorHookToken, channelID)
	w.searx = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.NotFound(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.Write([]byte(`{"results":[{"url":"https://example.com/yorozu","title":"yorozu","content":"a Discord bot"}]}`))
	}))
	t.Cleanup(w.searx.Close)
	w.env = map[string]string{
		"DATA_DIR":           t.TempDir(),
		"DATABASE_URL":       dbURL,
		"DISCORD_TOKEN":      "test-token",
		"DISCORD_API_BASE":   w.discord.URL(),
		"OLLAMA_HOST":        w.ollama.URL(),
		"SEARCH_BACKEND":     "searxng",
		"SEARXNG_URL":        w.searx.URL,
		"JMA_BASE_URL":       jmaURL,
		"WEATHER_CHANNEL_ID": channelID,
		"TIPS_WEBHOOK_URL":   w.discord.URL() + "api/v10/webhooks/" + doctorWebhookID + "/" + doctorHookToken,
		"MCP_SERVERS":        `[{"name":"wiki","url":"` + mcpURL + `"}]`,
		"TIMEZONE":           "Asia/Tokyo",
	}
	return w
}

// wikiMCPServer serves one MCP tool, "lookup".
func wikiMCPServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "wiki", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "lookup", Description: "Look up a wiki page."},
		func(context.Context, *sdk.CallToolRequest, struct {
			Title string `json:"title"`
		}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "page"}}}, nil, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDoctor: `yorozu doctor` prints one checklist line per check, with the
// fix under each problem, exits non-zero exactly when a line is ❌, and
// changes nothing: no migration, no message, no REST call but GETs.
func TestDoctor(t *testing.T) {
	dbURL := dbtest.URL(t)
	migrateJobQueue(t, dbURL) // as serve would
	emptyURL := dbtest.EmptyURL(t)
	jmaURL := fakeJMA(t)
	mcpURL := wikiMCPServer(t)
	fine := []string{
		"✅ 環境変数の設定は正しく読めます / the settings in the environment are valid",
		"✅ DATA_DIR ",
		"✅ データベースに接続できます / the database answers (PostgreSQL ",
		"✅ マイグレーションは最新です / the migrations are current (",
		"✅ Discord はトークンとインテントを受け付け、ボットはサーバーに参加しています",
		"✅ Ollama http://127.0.0.1:",
		"✅ モデル qwen3:4b（DEFAULT_MODEL, REMINDER_MODEL, WEATHER_NOTIFY_MODEL）があります / model qwen3:4b (DEFAULT_MODEL, REMINDER_MODEL, WEATHER_NOTIFY_MODEL) is pulled (completion, tools)",
		"✅ モデル bge-m3（EMBED_MODEL）があります",
		"✅ 検索（searxng）が答えます / the search backend searxng answers (a test query found 1)",
		"✅ 気象庁の予報を読めます: 東京地方（130000）",
		"✅ 天気の投稿のチャンネル " + channelID + " にボットが投稿できます",
		"✅ Tips の投稿の Webhook があります / the tips post's webhook (TIPS_WEBHOOK_URL) exists",
		"✅ MCP サーバー wiki が起動し、ツールが 1 個使えます / MCP server wiki starts and offers 1 tool(s): wiki_lookup",
		"すべて問題ありません / everything is fine",
	}
	tests := []struct {
		name string
		prep func(t *testing.T, w *doctorWorld)
		fail bool     // exits non-zero
		want []string // lines, from their start
	}{
		{name: "all fine", want: fine},
		{
			name: "disallowed intents", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.discord.CloseGateway(4014) },
			want: []string{
				"❌ Discord が Message Content Intent を拒否しました（close 4014）",
				"   → Developer Portal → Bot → Privileged Gateway Intents で Message Content Intent を有効にしてください",
				"✅ モデル qwen3:4b",
			},
		},
		{
			name: "bad token", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.discord.RejectToken(true) },
			want: []string{"❌ Discord がトークンを受け付けません（4004/401）", "   → トークンが間違っているかリセットされています。"},
		},
		{
			name: "bot in no server", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.discord.SetGuilds() },
			want: []string{"❌ ボットがどのサーバーにも参加していません / the bot is in no server",
				"   → 招待してください / invite it: " + bot.InviteURL(discordtest.New(t).AppID())},
		},
		{
			name: "ollama down", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.ollama.Down() },
			want: []string{"❌ Ollama に接続できません / cannot reach Ollama at http://127.0.0.1:",
				"   → Ollama を起動するか（ollama serve、またはそのサービス）、OLLAMA_HOST を Ollama のアドレスにしてください"},
		},
		{
			name: "model not pulled", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.env["REMINDER_MODEL"] = "llama3" },
			want: []string{
				"✅ モデル qwen3:4b（DEFAULT_MODEL, WEATHER_NOTIFY_MODEL）があります",
				"❌ モデル llama3（REMINDER_MODEL）がありません / model llama3 (REMINDER_MODEL) is not pulled",
				"   → Ollama のサーバーで実行してください / run on the Ollama server: ollama pull llama3",
			},
		},
		{
			name: "chat model without tools is a warning",
			prep: func(_ *testing.T, w *doctorWorld) {
				w.ollama.AddModel("gemma3", "completion")
				w.env["DEFAULT_MODEL"] = "gemma3"
			},
			want: []string{
				"⚠️ モデル gemma3（DEFAULT_MODEL, REMINDER_MODEL, WEATHER_NOTIFY_MODEL）はツール呼び出しに対応していません",
				"   → ツールは構造化出力（JSON）で呼び出すので、このままでも使えます。",
				"直すもの 0 件、注意 1 件 / 0 to fix, 1 warning(s)",
			},
		},
		{
			name: "DATA_DIR under a regular file", fail: true,
			prep: func(t *testing.T, w *doctorWorld) { w.env["DATA_DIR"], _ = dataDirUnderAFile(t) },
			want: []string{"❌ DATA_DIR ", "   → yorozu を動かすユーザーが書き込めるディレクトリを DATA_DIR に設定してください"},
		},
		{
			name: "database unreachable", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) {
				w.env["DATABASE_URL"] = "postgres://yorozu:pw-secret@127.0.0.1:1/yorozu?connect_timeout=5"
			},
			want: []string{"❌ データベースに接続できません / cannot connect to the database: ",
				"   → PostgreSQL が動いているか、DATABASE_URL", "✅ モデル qwen3:4b"},
		},
		{
			name: "migrations pending are applied by serve",
			prep: func(_ *testing.T, w *doctorWorld) { w.env["DATABASE_URL"] = emptyURL },
			want: []string{"⚠️ 適用されていないマイグレーションがあります / migrations not applied yet: ",
				"   → yorozu serve が起動時に適用します。今すぐなら yorozu migrate"},
		},
		{
			name: "no DATABASE_URL", fail: isRoot(),
			prep: func(_ *testing.T, w *doctorWorld) { delete(w.env, "DATABASE_URL") },
			want: func() []string {
				if isRoot() {
					return []string{"❌ 埋め込み PostgreSQL は root では動きません（initdb が root を拒否します）",
						"   → DATABASE_URL に既存の PostgreSQL を設定するか、一般ユーザーで実行してください"}
				}
				return []string{"✅ DATABASE_URL が未設定なので、serve は埋め込み PostgreSQL を使います / DATABASE_URL is unset: serve creates a new database in "}
			}(),
		},
		{
			name: "search backend fails", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.env["SEARXNG_URL"] = w.searx.URL + "/wrong" },
			want: []string{"❌ 検索（searxng）が使えません / the search backend searxng fails: ",
				"   → SEARXNG_URL を確認し、SearXNG の settings.yml の search.formats に json を加えてください"},
		},
		{
			name: "JMA has no such office", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.env["WEATHER_AREA_CODE"] = "470000" },
			want: []string{"❌ 気象庁の予報（WEATHER_AREA_CODE 470000）を読めません", "   → JMA_BASE_URL と WEATHER_AREA_CODE"},
		},
		{
			name: "webhook deleted", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) {
				w.env["TIPS_WEBHOOK_URL"] = w.discord.URL() + "api/v10/webhooks/" + doctorWebhookID + "/old-" + doctorHookToken
			},
			want: []string{"❌ the tips post (TIPS_WEBHOOK_URL): Webhook が見つかりません（削除されたか、URL が違います）",
				"   → チャンネルの編集 → 連携サービス → ウェブフック で URL をコピーし直して設定してください"},
		},
		{
			name: "channel without a permission", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.discord.DenyBot(channelID, discordgo.PermissionAttachFiles) },
			want: []string{"❌ the weather post (WEATHER_CHANNEL_ID): ボットはチャンネル " + channelID + " に投稿できません（権限がありません: ファイルを添付 / Attach Files）",
				"   → サーバー設定 → ロール、またはチャンネルの編集 → 権限で、ボットに次の権限を許可してください"},
		},
		{
			name: "unknown channel", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.env["WEATHER_CHANNEL_ID"] = "200000000000000099" },
			want: []string{"❌ the weather post (WEATHER_CHANNEL_ID): チャンネル 200000000000000099 が見つからないか、ボットから見えません"},
		},
		{
			name: "channel post without Discord", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.env["DISCORD_TOKEN"] = "" },
			want: []string{"❌ 設定が正しくありません / the configuration is not valid: invalid configuration: WEATHER_CHANNEL_ID needs DISCORD_TOKEN"},
		},
		{
			name: "MCP server does not start", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) {
				w.env["MCP_SERVERS"] = `[{"name":"files","command":"/nonexistent/mcp-server-filesystem"}]`
			},
			want: []string{"❌ MCP サーバー files が起動しません / MCP server files does not start: ",
				"   → MCP_SERVERS の command（または url）を確認し、手で起動できるか試してください"},
		},
		{
			name: "bad setting", fail: true,
			prep: func(_ *testing.T, w *doctorWorld) { w.env["LLM_CONCURRENCY"] = "zero" },
			want: []string{"❌ 設定が正しくありません / the configuration is not valid: ", "   → 名前の出ている環境変数を直してください"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newDoctorWorld(t, dbURL, jmaURL, mcpURL)
			if tc.prep != nil {
				tc.prep(t, w)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var stdout, stderr bytes.Buffer
			err := run(ctx, []string{"doctor"}, func(k string) string { return w.env[k] }, &stdout, &stderr)
			out := stdout.String()
			if (err != nil) != tc.fail {
				t.Errorf("doctor returned %v, want failure %v\n%s", err, tc.fail, out)
			}
			if tc.fail && (exitCode(err) != 1 || !strings.Contains(err.Error(), "problem(s) to fix")) {
				t.Errorf("doctor's error %v (exit %d)", err, exitCode(err))
			}
			if fails := strings.Count(out, "\n❌ ") > 0; fails != tc.fail {
				t.Errorf("❌ lines %v but failure %v:\n%s", fails, tc.fail, out)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, "\n"+want) {
					t.Errorf("no line starting %q in:\n%s", want, out)
				}
			}
			for _, secret := range []string{doctorHookToken, "pw-secret"} {
				if strings.Contains(out, secret) {
					t.Errorf("the checklist shows a secret (%s):\n%s", secret, out)
				}
			}
			for _, c := range w.discord.Calls() {
				if c.Method != http.MethodGet {
					t.Errorf("doctor made a change on Discord: %s %s", c.Method, c.Path)
				}
			}
			if n := len(w.discord.Messages(channelID)); n != 0 {
				t.Errorf("doctor posted %d messages", n)
			}
			if w.ollama.ChatCalls() != 0 {
				t.Errorf("doctor asked the model %d times", w.ollama.ChatCalls())
			}
		})
	}
	// Nothing was migrated.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := db.Open(ctx, emptyURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if applied, _, err := db.MigrationStatus(ctx, pool); err != nil || applied != 0 {
		t.Errorf("doctor migrated the empty database: %d applied, %v", applied, err)
	}
	if _, err := os.Stat("data"); err == nil {
		t.Error("doctor created ./data")
	}
}

// migrateJobQueue applies River's migrations to the database at url.
func migrateJobQueue(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := scheduler.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
}
