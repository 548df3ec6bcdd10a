package wordpool

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestNounsOfRealSentences(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
		not  []string
	}{
		{"昨日は友達と新宿のラーメン屋に行きました。", []string{"友達", "新宿", "ラーメン"}, []string{"昨日", "は", "行き"}},
		{"明日の東京は雨らしいので傘を持っていこう", []string{"東京", "雨", "傘"}, []string{"明日", "らしい", "こう"}},
		{"猫がキーボードの上で寝ていて仕事にならない", []string{"キーボード", "仕事"}, []string{"上", "寝"}},
		{"彼はこれを3回も言った", nil, []string{"彼", "これ", "3", "回"}},
		{"Goのジェネリクスについて教えてください", []string{"ジェネリクス"}, nil},
		{"", nil, nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got := Nouns(tc.text)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("Nouns = %q, missing %q", got, w)
				}
			}
			for _, w := range tc.not {
				if slices.Contains(got, w) {
					t.Errorf("Nouns = %q, should not contain %q", got, w)
				}
			}
		})
	}
}

func TestPoolKeepsLatestUnique(t *testing.T) {
	p := New(3)
	p.AddNouns(Nouns("東京の天気"))     // 東京 天気
	p.AddNouns(Nouns("大阪のたこ焼き"))   // 大阪 たこ焼き → 東京 falls out
	p.AddNouns(Nouns("天気が良いので散歩")) // 天気 moves to newest, 散歩 added
	got := p.Words()
	want := []string{"たこ焼き", "天気", "散歩"}
	if !slices.Equal(got, want) {
		t.Fatalf("words = %q, want %q", got, want)
	}
	p.AddNouns(Nouns("それはそう")) // no nouns worth keeping
	if n := len(p.Words()); n != 3 {
		t.Fatalf("len = %d", n)
	}
}

func TestPickAndRelated(t *testing.T) {
	p := New(0)
	r := rand.New(rand.NewPCG(1, 2))
	if _, ok := p.Pick(r); ok {
		t.Fatal("empty pool picked a word")
	}
	if _, ok := p.Related("えっと", r); ok {
		t.Fatal("nothing to relate to")
	}
	p.Seed([]string{"カレーの作り方を教えて", "週末は登山に行く"})
	w, ok := p.Pick(r)
	if !ok || !slices.Contains(p.Words(), w) {
		t.Fatalf("Pick = %q, %v", w, ok)
	}
	// A noun the pool knows beats one it does not.
	if w, _ := p.Related("登山と読書が好き", r); w != "登山" {
		t.Errorf("Related = %q, want 登山", w)
	}
	if w, _ := p.Related("読書が好き", r); w != "読書" {
		t.Errorf("Related = %q, want the text's own noun 読書", w)
	}
}

var vocab = strings.Fields("東京 大阪 京都 札幌 福岡 仙台 横浜 神戸 奈良 沖縄 " +
	"ラーメン カレー 寿司 天ぷら 蕎麦 うどん 餃子 焼肉 刺身 味噌汁 " +
	"映画 音楽 読書 登山 釣り 料理 写真 旅行 散歩 水泳 " +
	"電車 自転車 飛行機 新幹線 タクシー 会社 学校 病院 図書館 公園 " +
	"パソコン スマホ キーボード マウス プリンター 洗濯機 冷蔵庫 掃除機 電子レンジ テレビ")

func TestConcurrentUse(t *testing.T) {
	p := New(50)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				p.AddNouns(Nouns(fmt.Sprintf("%sと%sの話", vocab[(i*20+j)%len(vocab)], vocab[(i*7+j*3)%len(vocab)])))
				p.Pick(nil)
				p.Related("プロジェクトの打ち合わせ", nil)
			}
		}()
	}
	wg.Wait()
	words := p.Words()
	slices.Sort(words)
	if len(words) != 50 || len(slices.Compact(words)) != 50 {
		t.Fatalf("kept %d words (%d unique), want 50", len(words), len(slices.Compact(words)))
	}
}

func TestSeedFromDB(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	s, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: "web", Key: "discord:channel:1"})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC)
	for i, m := range []struct{ role, text string }{
		{db.RoleUser, "富士山に登りたい"}, {db.RoleAssistant, "夏がおすすめです"}, {db.RoleUser, "温泉も行きたい"},
	} {
		if _, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: s.ID, Role: m.role, Content: m.text,
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	p := New(0)
	if err := p.SeedFromDB(ctx, pool, "web", 0); err != nil {
		t.Fatal(err)
	}
	if got := p.Words(); !slices.Equal(got, []string{"富士山", "温泉"}) {
		t.Fatalf("seeded %q, want the users' nouns only, oldest first", got)
	}
}

// Each space has its own pool, seeded from its own messages: one
// community's words are never another's.
func TestSpacesKeepTheirOwnWords(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	t0 := time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC)
	for i, m := range []struct{ space, key, text string }{
		{"guild:1", "discord:channel:1", "富士山に登りたい"},
		{"guild:2", "discord:channel:2", "温泉に行きたい"},
	} {
		s, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: m.space, Key: m.key})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: s.ID, Role: db.RoleUser, Content: m.text,
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	spaces := NewSpaces(pool, 0, 2, nil)
	if got := spaces.Words(ctx, "guild:1"); !slices.Equal(got, []string{"富士山"}) {
		t.Errorf("guild:1 seeded with %q, want its own nouns alone", got)
	}
	spaces.Pool(ctx, "guild:2").AddNouns(Nouns("猫が好き"))
	if got := spaces.Words(ctx, "guild:2"); !slices.Equal(got, []string{"温泉", "猫"}) {
		t.Errorf("guild:2 = %q", got)
	}
	if spaces.Pool(ctx, "guild:1").Knows("猫") {
		t.Error("a word said in guild:2 reached guild:1's pool")
	}
	if w, ok := spaces.Pool(ctx, "dm:9").Pick(nil); ok {
		t.Errorf("a space nobody spoke in offers %q", w)
	}
	// Beyond the maximum, the least lately used pool goes, and comes back
	// seeded from the database when used again.
	spaces.mu.Lock()
	n := len(spaces.pools)
	spaces.mu.Unlock()
	if n > 2 {
		t.Errorf("%d pools kept, want at most 2", n)
	}
	if got := spaces.Words(ctx, "guild:1"); !slices.Equal(got, []string{"富士山"}) {
		t.Errorf("guild:1 after eviction = %q", got)
	}
}

// A saved pool seeds the next process's from one row: its words as they
// were, in order, without reading the space's messages again. A pool
// unchanged since it was seeded or saved is not written.
func TestSavedPoolSeedsTheNextProcess(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	s, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: "guild:1", Key: "discord:channel:1"})
	if err != nil {
		t.Fatal(err)
	}
	say := func(text string) {
		t.Helper()
		if _, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: s.ID, Role: db.RoleUser, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	savedAt := func() (at time.Time) {
		t.Helper()
		if err := pool.QueryRow(ctx, "SELECT saved_at FROM word_pools WHERE space = 'guild:1'").Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	say("富士山に登りたい")

	first := NewSpaces(pool, 0, 0, nil)
	first.Pool(ctx, "guild:1").AddNouns(Nouns("温泉と猫"))
	if err := first.Save(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"富士山", "温泉", "猫"}
	if words, ok, err := db.SavedWordPool(ctx, pool, "guild:1"); err != nil || !ok || !slices.Equal(words, want) {
		t.Fatalf("saved %q, %v, %v; want %q", words, ok, err, want)
	}
	at := savedAt()
	if err := first.Save(ctx); err != nil || !savedAt().Equal(at) {
		t.Errorf("an unchanged pool was written again (%v)", err)
	}

	say("ラーメンが食べたい") // after the save: the next process does not read it
	next := NewSpaces(pool, 0, 0, nil)
	if got := next.Words(ctx, "guild:1"); !slices.Equal(got, want) {
		t.Errorf("the next process seeded %q, want the saved %q", got, want)
	}
	if err := next.Save(ctx); err != nil || !savedAt().Equal(at) {
		t.Errorf("a pool seeded from its saved row was written again (%v)", err)
	}
	next.Pool(ctx, "guild:1").AddNouns(Nouns("将棋"))
	if err := next.Save(ctx); err != nil || savedAt().Equal(at) {
		t.Errorf("a changed pool was not saved (%v)", err)
	}
	if words, _, _ := db.SavedWordPool(ctx, pool, "guild:1"); !slices.Equal(words, append(want, "将棋")) {
		t.Errorf("saved %q after a change", words)
	}
	if _, ok, err := db.SavedWordPool(ctx, pool, "guild:2"); ok || err != nil {
		t.Errorf("a space never saved: %v, %v", ok, err)
	}
}

// Ready does not wait: nil for a pool not seeded yet, whose seeding (and
// tokenising) goes on meanwhile; the seeded pool afterwards.
func TestReadyDoesNotWaitForTheSeed(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	s, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: "guild:1", Key: "discord:channel:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: s.ID, Role: db.RoleUser, Content: "富士山に登りたい"}); err != nil {
		t.Fatal(err)
	}
	spaces := NewSpaces(pool, 0, 0, nil)
	if p := spaces.Ready("guild:1"); p != nil {
		t.Fatalf("Ready before any seeding = %q", p.Words())
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		p := spaces.Ready("guild:1")
		if p != nil {
			if got := p.Words(); !slices.Equal(got, []string{"富士山"}) {
				t.Errorf("seeded in the background with %q", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never seeded")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := spaces.Words(ctx, "guild:1"); !slices.Equal(got, []string{"富士山"}) {
		t.Errorf("Pool after Ready = %q (seeded twice?)", got)
	}
}

// message200 is a 200-character chat message.
var message200 = func() string {
	s := strings.Repeat("昨日は友達と新宿のラーメン屋に行って、そのあと映画館で新作のアニメ映画を見ました。帰りに本屋で旅行のガイドブックを買いました。", 5)
	return string([]rune(s)[:200])
}()

// BenchmarkAdd200 is the word-pool update for a 200-character message
// (target: ≤ 1 ms median).
func BenchmarkAdd200(b *testing.B) {
	tokenizerOnce("")
	p := New(0)
	p.Seed([]string{strings.Repeat("東京 大阪 名古屋 札幌 福岡 ", 40)})
	b.ReportAllocs()
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		p.AddNouns(Nouns(message200))
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "median-µs")
}

// TestReportRSS logs the process RSS with the dictionary loaded (target:
// under 150 MB for the whole bot). Run with -v to read it.
func TestReportRSS(t *testing.T) {
	tokenizerOnce("")
	Nouns(message200)
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status on this system")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "VmRSS:") || strings.HasPrefix(sc.Text(), "VmHWM:") {
			t.Log(sc.Text())
		}
	}
}

func TestSeedWaitsForFirstUse(t *testing.T) {
	p := New(3)
	p.AddNouns(Nouns("東京の天気"))          // 東京 天気
	p.Seed([]string{"大阪のたこ焼き", "京都の寺"}) // older than what was added
	if !p.Knows("寺") || !p.Knows("天気") {
		t.Fatalf("words = %q", p.Words())
	}
	// Seeded nouns are older: the oldest fall out first.
	if got, want := p.Words(), []string{"寺", "東京", "天気"}; !slices.Equal(got, want) {
		t.Fatalf("words = %q, want %q", got, want)
	}
}

// Words gives every word with its part of speech, so 雨 in 梅雨 or 雨宮 is
// not the word 雨, and spaces are left out.
func TestWords(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string // surface/part of speech
	}{
		{"明日雨降る？", []string{"明日/名詞", "雨/名詞", "降る/動詞", "？/記号"}},
		{"梅雨の時期", []string{"梅雨/名詞", "の/助詞", "時期/名詞"}},
		{"雨宮さん", []string{"雨宮/名詞", "さん/名詞"}},
		{"remind me", []string{"remind/名詞", "me/名詞"}},
		{"", nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			var got []string
			for _, w := range Words(tc.text) {
				got = append(got, w.Surface+"/"+w.POS[0])
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Words = %q, want %q", got, tc.want)
			}
		})
	}
	if w := Words("大阪"); len(w) != 1 || !slices.Equal(w[0].POS[:3], []string{"名詞", "固有名詞", "地域"}) {
		t.Errorf("Words(大阪) = %+v, want a place", w)
	}
}
