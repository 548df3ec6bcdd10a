package weather

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func load(t *testing.T, name string) *Forecast {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(b, "")
	if err != nil {
		t.Fatalf("Parse %s: %v", name, err)
	}
	return f
}

func jst(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, JST)
	if err != nil {
		panic(err)
	}
	return t
}

func v(n int) Value { return Value{N: n, Valid: true} }

func pops(d Day) string {
	var parts []string
	for _, b := range d.Pops {
		parts = append(parts, b.Start.Format("02T15")+"="+b.Percent.String())
	}
	return strings.Join(parts, " ")
}

func TestParseReportCycles(t *testing.T) {
	for _, tc := range []struct {
		file      string
		cycle     int
		now       string // when the post is made
		wantDate  string
		wantCode  string
		wantPops  string
		wantMin   Value
		wantMax   Value
		wantDays  int
		wantWind  string
		wantNight bool
	}{
		// 05:00: [D, D+1]; 7 blocks; temps [D09, D00, D+1 00, D+1 09].
		{"forecast_130000_05.json", 5, "2025-06-10 06:30", "2025-06-10", "101",
			"10T06=0 10T12=10 10T18=20", Value{}, v(27), 2, "北の風　やや強く", false},
		// The same report read in the evening: tomorrow, with its own min.
		{"forecast_130000_05.json", 5, "2025-06-10 19:00", "2025-06-11", "212",
			"11T00=10 11T06=20 11T12=30 11T18=60", v(19), v(24), 2, "南の風　後　北の風", false},
		// 11:00: [D, D+1, D+2]; 6 blocks; past blocks of today are gone.
		{"forecast_130000_11.json", 11, "2025-06-10 12:30", "2025-06-10", "101",
			"10T12=10 10T18=20", Value{}, v(28), 3, "北の風", false},
		// Posted at 14:30, still today; the 12-18 block is still running.
		{"forecast_130000_11.json", 11, "2025-06-10 14:30", "2025-06-10", "101",
			"10T12=10 10T18=20", Value{}, v(28), 3, "北の風", false},
		// 17:00: [D tonight, D+1, D+2]; 5 blocks; temps [D+1 00, D+1 09].
		{"forecast_130000_17.json", 17, "2025-06-10 18:00", "2025-06-11", "214",
			"11T00=10 11T06=20 11T12=50 11T18=80", v(20), v(22), 3, "南の風　やや強く", false},
		// Missing values stay missing, never 0.
		{"forecast_130000_missing.json", 17, "2025-06-10 18:00", "2025-06-11", "",
			"11T00=— 11T06=20 11T12=— 11T18=80", Value{}, Value{}, 3, "", false},
	} {
		t.Run(tc.file+"@"+tc.now, func(t *testing.T) {
			f := load(t, tc.file)
			if f.Cycle != tc.cycle || len(f.Days) != tc.wantDays {
				t.Fatalf("cycle %d with %d days, want %d with %d", f.Cycle, len(f.Days), tc.cycle, tc.wantDays)
			}
			if f.Area != "東京地方" || f.AreaCode != "130010" || f.Station != "東京" || f.Office != "気象庁" {
				t.Errorf("area %q %q station %q office %q", f.Area, f.AreaCode, f.Station, f.Office)
			}
			d, ok := f.Target(jst(tc.now))
			if !ok {
				t.Fatal("no target day")
			}
			if got := d.Date.Format(time.DateOnly); got != tc.wantDate {
				t.Errorf("target %s, want %s", got, tc.wantDate)
			}
			if d.Code != tc.wantCode || d.Wind != tc.wantWind || d.Tonight != tc.wantNight {
				t.Errorf("code %q wind %q tonight %v", d.Code, d.Wind, d.Tonight)
			}
			if got := pops(d); got != tc.wantPops {
				t.Errorf("pops %q, want %q", got, tc.wantPops)
			}
			if d.Min != tc.wantMin || d.Max != tc.wantMax {
				t.Errorf("min %v max %v, want %v %v", d.Min, d.Max, tc.wantMin, tc.wantMax)
			}
		})
	}
}

func TestPastBlocksDropped(t *testing.T) {
	f := load(t, "forecast_130000_05.json")
	d, _ := f.Target(jst("2025-06-10 12:05"))
	if got := pops(d); got != "10T12=10 10T18=20" {
		t.Errorf("at 12:05 pops = %q; the 06-12 block is over", got)
	}
	if d.DaytimeRain != v(10) {
		t.Errorf("daytime rain %v, want 10 (from the 06-12 and 12-18 blocks as forecast)", d.DaytimeRain)
	}
}

func TestParseOtherAreaAndTonight(t *testing.T) {
	b, _ := os.ReadFile("testdata/forecast_130000_17.json")
	f, err := Parse(b, "130020")
	if err != nil {
		t.Fatal(err)
	}
	if f.Area != "伊豆諸島北部" || f.Days[0].Code != "300" || pops(f.Days[0]) != "10T18=90" {
		t.Errorf("area %q code %q pops %q", f.Area, f.Days[0].Code, pops(f.Days[0]))
	}
	if !f.Days[0].Tonight || f.Days[1].Tonight {
		t.Error("only the first day of a 17:00 report is tonight")
	}
	if _, err := Parse(b, "999999"); err == nil {
		t.Error("an unknown area should fail")
	}
	if _, err := Parse([]byte(`{"not":"a list"}`), ""); err == nil {
		t.Error("garbage should fail")
	}
}

func day(code string, max Value, wind string, p ...int) Day {
	d := Day{Code: code, Max: max, Wind: wind, Date: jst("2025-06-11 00:00")}
	for i, pct := range p {
		val := v(pct)
		if pct < 0 {
			val = Value{}
		}
		d.Pops = append(d.Pops, Block{Start: d.Date.Add(time.Duration(6*i) * time.Hour), Percent: val})
		if (i == 1 || i == 2) && val.Valid && (!d.DaytimeRain.Valid || val.N > d.DaytimeRain.N) {
			d.DaytimeRain = val
		}
	}
	return d
}

func TestLaundryFormula(t *testing.T) {
	for _, tc := range []struct {
		name    string
		day     Day
		index   int
		band    string
		factors string
	}{
		{"sunny hot dry", day("100", v(35), "北の風", 0, 0, 0, 0), 90, "よく乾く",
			"晴れ 70 ＋ 気温 +15 ＋ 降水0% 0 = 85 → 90"},
		{"sunny cold", day("101", v(5), "", 0, 0, 0, 0), 60, "乾く",
			"晴れ 70 ＋ 気温 -15 ＋ 降水0% 0 = 55 → 60"},
		{"night blocks do not count", day("100", v(25), "", 90, 10, 20, 90), 70, "乾く",
			"晴れ 70 ＋ 気温 +15 ＋ 降水20% -12 = 73 → 70"},
		{"breeze helps", day("110", v(21), "南の風　やや強く", 0, 10, 10, 0), 80, "よく乾く",
			"晴れ 70 ＋ 気温 +9 ＋ 降水10% -6 ＋ 風 +5 = 78 → 80"},
		{"rain later caps at 50", day("114", v(30), "南の風　やや強く", 0, 0, 0, 0), 50, "厚手は部屋干し",
			"晴れ 70 ＋ 気温 +15 ＋ 降水0% 0 ＋ 風 +5 = 90（後から雨のため上限50） → 50"},
		{"cloudy rain later under the cap", day("212", v(24), "", 10, 20, 30, 60), 40, "厚手は部屋干し",
			"くもり 45 ＋ 気温 +13.5 ＋ 降水30% -18 = 40.5 → 40"},
		{"cloudy strong wind", day("200", v(15), "北の風　強く", 0, 30, 10, 0), 20, "乾きにくい",
			"くもり 45 ＋ 気温 0 ＋ 降水30% -18 ＋ 風 -5 = 22 → 20"},
		{"rain", day("300", v(20), "", 80, 80, 80, 80), 0, "部屋干し推奨",
			"雨 15 ＋ 気温 +7.5 ＋ 降水80% -48 = -25.5 → 0"},
		{"snow", day("400", v(0), "", 50, 50, 50, 50), 0, "部屋干し推奨",
			"雪 10 ＋ 気温 -15 ＋ 降水50% -30 = -35 → 0"},
		{"missing max and rain", day("201", Value{}, "", -1, -1, -1, -1), 50, "厚手は部屋干し",
			"くもり 45 ＋ 気温 不明 0 ＋ 降水 不明 0 = 45 → 50"},
		{"band edge 79 rounds up", day("100", v(24), "", 0, 10, 10, 0), 80, "よく乾く",
			"晴れ 70 ＋ 気温 +13.5 ＋ 降水10% -6 = 77.5 → 80"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, ok := ComputeLaundry(tc.day)
			if !ok {
				t.Fatal("no index")
			}
			if l.Index != tc.index || l.Band != tc.band {
				t.Errorf("index %d %s, want %d %s", l.Index, l.Band, tc.index, tc.band)
			}
			if got := l.Factors(); got != tc.factors {
				t.Errorf("factors\n got %s\nwant %s", got, tc.factors)
			}
		})
	}
	for _, code := range []string{"", "999"} {
		if _, ok := ComputeLaundry(day(code, v(20), "")); ok {
			t.Errorf("code %q gave an index", code)
		}
	}
}

func TestBands(t *testing.T) {
	for idx, want := range map[int]string{100: "よく乾く", 80: "よく乾く", 70: "乾く", 60: "乾く", 50: "厚手は部屋干し",
		40: "厚手は部屋干し", 30: "乾きにくい", 20: "乾きにくい", 10: "部屋干し推奨", 0: "部屋干し推奨"} {
		if got := band(idx); got != want {
			t.Errorf("band(%d) = %s, want %s", idx, got, want)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./weather -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestFormatPostGolden(t *testing.T) {
	for _, tc := range []struct{ file, now, comment, golden string }{
		{"forecast_130000_05.json", "2025-06-10 06:30", "おはようございます！今日は洗濯日和です。", "post_05_morning.golden"},
		{"forecast_130000_11.json", "2025-06-10 12:30", "", "post_11_noon.golden"},
		{"forecast_130000_17.json", "2025-06-10 18:00", "明日は午後から雨。傘をお忘れなく。", "post_17_evening.golden"},
		{"forecast_130000_missing.json", "2025-06-10 18:00", "", "post_missing.golden"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			f := load(t, tc.file)
			d, ok := f.Target(jst(tc.now))
			if !ok {
				t.Fatal("no target")
			}
			got := FormatPost(f, d, tc.comment)
			if !strings.HasSuffix(got, "出典：気象庁") {
				t.Error("post does not end with the attribution")
			}
			golden(t, tc.golden, got)
		})
	}
}

func TestFactsGolden(t *testing.T) {
	f := load(t, "forecast_130000_11.json")
	b, _ := os.ReadFile("testdata/overview_130000.json")
	if err := f.ParseOverview(b); err != nil {
		t.Fatal(err)
	}
	golden(t, "facts_11.golden", Facts(f, jst("2025-06-10 19:00")))
}

// jmaServer serves the testdata fixtures as JMA would.
type jmaServer struct {
	*httptest.Server
	hits     atomic.Int32
	forecast atomic.Value // file name
	status   atomic.Int32
	block    chan struct{}
}

func newJMA(t *testing.T) *jmaServer {
	s := &jmaServer{}
	s.forecast.Store("forecast_130000_05.json")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /forecast/data/forecast/130000.json", func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if s.block != nil {
			select {
			case <-s.block:
			case <-r.Context().Done():
				return
			}
		}
		if st := s.status.Load(); st != 0 {
			http.Error(w, "down", int(st))
			return
		}
		http.ServeFile(w, r, filepath.Join("testdata", s.forecast.Load().(string)))
	})
	mux.HandleFunc("GET /forecast/data/overview_forecast/130000.json", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, "testdata/overview_130000.json")
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestClientCachesForThirtyMinutes(t *testing.T) {
	srv := newJMA(t)
	clk := &clock{t: jst("2025-06-10 06:00")}
	c := NewClient(ClientOptions{BaseURL: srv.URL, HTTPClient: srv.Client(), Now: clk.Now})
	ctx := context.Background()
	f, err := c.Forecast(ctx, "130000")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Overview, "高気圧") {
		t.Errorf("overview not read: %q", f.Overview)
	}
	clk.Add(29 * time.Minute)
	if _, err := c.Forecast(ctx, "130000"); err != nil || srv.hits.Load() != 1 {
		t.Fatalf("within 30 min: err %v, %d fetches", err, srv.hits.Load())
	}
	clk.Add(2 * time.Minute)
	srv.forecast.Store("forecast_130000_11.json")
	f, err = c.Forecast(ctx, "130000")
	if err != nil || srv.hits.Load() != 2 || f.Cycle != 11 {
		t.Fatalf("after 31 min: err %v, %d fetches, cycle %d", err, srv.hits.Load(), f.Cycle)
	}
}

func TestClientDownAndTimeout(t *testing.T) {
	srv := newJMA(t)
	srv.status.Store(http.StatusServiceUnavailable)
	c := NewClient(ClientOptions{BaseURL: srv.URL, HTTPClient: srv.Client()})
	if _, err := c.Forecast(context.Background(), "130000"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("503: err = %v, want ErrUnavailable", err)
	}

	srv.status.Store(0)
	srv.block = make(chan struct{}) // never answers
	t.Cleanup(func() { close(srv.block) })
	c = NewClient(ClientOptions{BaseURL: srv.URL, HTTPClient: srv.Client(), Timeout: 50 * time.Millisecond})
	if _, err := c.Forecast(context.Background(), "130000"); !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hung server: err = %v, want ErrUnavailable after the timeout", err)
	}

	srv.Close()
	c = NewClient(ClientOptions{BaseURL: srv.URL})
	if _, err := c.Forecast(context.Background(), "130000"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("closed server: err = %v, want ErrUnavailable", err)
	}
}

func TestClientRemembersAFailureForAMinute(t *testing.T) {
	srv := newJMA(t)
	srv.status.Store(http.StatusServiceUnavailable)
	clk := &clock{t: jst("2025-06-10 06:00")}
	c := NewClient(ClientOptions{BaseURL: srv.URL, HTTPClient: srv.Client(), Now: clk.Now})
	ctx := context.Background()
	for range 5 {
		if _, err := c.Forecast(ctx, "130000"); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
		clk.Add(10 * time.Second)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("%d fetches for five questions within a minute of a failure, want 1", n)
	}
	srv.status.Store(0)
	clk.Add(20 * time.Second) // a minute after the failure: JMA is asked again
	if f, err := c.Forecast(ctx, "130000"); err != nil || f == nil || srv.hits.Load() != 2 {
		t.Fatalf("after a minute: err %v, %d fetches", err, srv.hits.Load())
	}
}
