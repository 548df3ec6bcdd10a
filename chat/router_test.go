package chat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/llm"
)

func named(name string, got *string) Handler {
	return HandlerFunc(func(context.Context, Request, func(llm.Event) error) error {
		*got = name
		return nil
	})
}

func TestRouterPrecedence(t *testing.T) {
	var got string
	r := NewRouter(named("chat", &got))
	for _, name := range []string{RouteSmalltalk, RouteWeather, RouteReminder} {
		if err := r.Add(name, named(name, &got)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ text, want string }{
		{"明日の朝9時にリマインドして", "reminder"},
		{"雨の日に傘を忘れないように、明日の朝8時に教えて", "reminder"}, // reminder beats weather
		{"毎朝7時に天気を教えて", "reminder"},
		{"Remind me tomorrow at 9", "reminder"},
		{"暇だけど明日雨降る？", "weather"}, // weather beats small talk
		{"暇だから天気の話して", "smalltalk"},
		{"明日の天気は？", "weather"},
		{"洗濯物は乾く？", "weather"},
		{"What's the WEATHER like tomorrow", "weather"},
		{"Goのジェネリクスを教えて", "chat"},
		{"", "chat"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got = ""
			if err := r.Respond(context.Background(), Request{Text: tc.text, At: corpusNow}, nil); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("routed to %q, want %q", got, tc.want)
			}
		})
	}
	if err := r.Add(RouteWeather, named("x", &got)); err == nil {
		t.Error("adding a route twice should fail")
	}
	if err := r.Add("wether", named("x", &got)); err == nil {
		t.Error("adding a route Classify never names should fail")
	}
}

// A route without a handler (a feature turned off) is answered by chat.
func TestRouterRouteWithoutHandler(t *testing.T) {
	var got string
	r := NewRouter(named("chat", &got))
	if err := r.Add(RouteReminder, named(RouteReminder, &got)); err != nil {
		t.Fatal(err)
	}
	if name, _ := r.Match("明日の天気は？", corpusNow); name != RouteChat {
		t.Errorf("weather question with no weather handler: routed to %q, want chat", name)
	}
}

// corpusNow is when the corpus's messages are said: a Monday afternoon in
// Tokyo.
var corpusNow = time.Date(2026, 12, 7, 14, 30, 0, 0, time.FixedZone("JST", 9*3600))

// corpusLine is one labelled message of testdata/routes.tsv.
type corpusLine struct {
	line       int
	want, text string
}

func readCorpus(t testing.TB) []corpusLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "routes.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusLine
	for i, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		want, text, ok := strings.Cut(l, "\t")
		if !ok || !slices.Contains(append([]string{RouteChat}, routeNames...), want) {
			t.Fatalf("routes.tsv:%d: want route<TAB>message, got %q", i+1, l)
		}
		out = append(out, corpusLine{line: i + 1, want: want, text: text})
	}
	return out
}

// TestRouteCorpus routes every labelled message through a router with
// every route and the real dictionary, and prints the accuracy per route.
func TestRouteCorpus(t *testing.T) {
	corpus := readCorpus(t)
	var unused string
	r := NewRouter(named(RouteChat, &unused))
	for _, name := range routeNames {
		if err := r.Add(name, named(name, &unused)); err != nil {
			t.Fatal(err)
		}
	}
	if len(corpus) < 300 {
		t.Errorf("corpus has %d messages, want at least 300", len(corpus))
	}
	type tally struct{ right, total int }
	per := map[string]*tally{}
	confused := map[[2]string]int{} // want, got
	for _, c := range corpus {
		got, _ := r.Match(c.text, corpusNow)
		tl := per[c.want]
		if tl == nil {
			tl = &tally{}
			per[c.want] = tl
		}
		tl.total++
		if got == c.want {
			tl.right++
			continue
		}
		confused[[2]string{c.want, got}]++
		t.Errorf("routes.tsv:%d: %q routed to %s, want %s", c.line, c.text, got, c.want)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-10s %6s %6s %8s\n", "route", "right", "total", "accuracy")
	right, total := 0, 0
	for _, name := range append([]string{RouteChat}, routeNames...) {
		tl := per[name]
		if tl == nil {
			t.Errorf("corpus has no %s message", name)
			continue
		}
		right, total = right+tl.right, total+tl.total
		fmt.Fprintf(&table, "%-10s %6d %6d %7.1f%%\n", name, tl.right, tl.total, 100*float64(tl.right)/float64(tl.total))
	}
	fmt.Fprintf(&table, "%-10s %6d %6d %7.1f%%\n", "all", right, total, 100*float64(right)/float64(total))
	for k, n := range confused {
		fmt.Fprintf(&table, "  %s routed to %s: %d\n", k[0], k[1], n)
	}
	t.Log(table.String())
}

// BenchmarkRoute routes the corpus's messages one by one, all of them and
// those of each route; the dictionary is loaded before the timer starts.
// cpu-ns/op is the process's CPU time per message, which a busy machine
// does not inflate as it does ns/op.
func BenchmarkRoute(b *testing.B) {
	corpus := readCorpus(b)
	Classify("辞書を読み込む", corpusNow)
	byRoute := map[string][]string{}
	var all []string
	for _, c := range corpus {
		byRoute[c.want] = append(byRoute[c.want], c.text)
		all = append(all, c.text)
	}
	run := func(b *testing.B, texts []string) {
		b.ReportAllocs()
		cpu0, ok := cpuTime()
		n := 0
		for b.Loop() {
			Classify(texts[n%len(texts)], corpusNow)
			n++
		}
		if cpu1, ok1 := cpuTime(); ok && ok1 {
			b.ReportMetric(float64(cpu1-cpu0)/float64(n), "cpu-ns/op")
		}
	}
	b.Run("all", func(b *testing.B) { run(b, all) })
	for _, name := range append([]string{RouteChat}, routeNames...) {
		b.Run(name, func(b *testing.B) { run(b, byRoute[name]) })
	}
}

func TestRouterTurnTimeout(t *testing.T) {
	var events []llm.Event
	r := NewRouter(HandlerFunc(func(ctx context.Context, _ Request, emit func(llm.Event) error) error {
		if err := emit(llm.Text{Text: "途中まで"}); err != nil {
			return err
		}
		<-ctx.Done() // a model that never finishes
		err := fmt.Errorf("chat m: %w", ctx.Err())
		_ = emit(llm.Failed{Err: err})
		return err
	}))
	r.TurnTimeout = 20 * time.Millisecond
	err := r.Respond(t.Context(), Request{Text: "hi"}, func(ev llm.Event) error {
		events = append(events, ev)
		return nil
	})
	if !errors.Is(err, ErrTurnTimeout) || !strings.Contains(err.Error(), "turn timed out after 20ms") {
		t.Fatalf("err = %v, want ErrTurnTimeout naming the limit", err)
	}
	if len(events) != 2 {
		t.Fatalf("events = %#v", events)
	}
	if f, ok := events[1].(llm.Failed); !ok || !errors.Is(f.Err, ErrTurnTimeout) {
		t.Errorf("Failed event = %#v, want it to carry ErrTurnTimeout", events[1])
	}

	// A turn that ends in time is untouched; a caller's cancel is not a timeout.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r.TurnTimeout = time.Hour
	if err := r.Respond(ctx, Request{Text: "hi"}, nil); errors.Is(err, ErrTurnTimeout) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled turn: err = %v", err)
	}
}

func TestRouterMiddlewareSeesRouteAndTurnID(t *testing.T) {
	var ids []string
	record := HandlerFunc(func(ctx context.Context, _ Request, _ func(llm.Event) error) error {
		ids = append(ids, TurnID(ctx))
		return nil
	})
	r := NewRouter(record)
	if err := r.Add(RouteWeather, record); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, tag := range []string{"outer", "inner"} {
		r.Use(func(route string, next Handler) Handler {
			return HandlerFunc(func(ctx context.Context, req Request, emit func(llm.Event) error) error {
				order = append(order, tag+":"+route)
				return next.Handle(ctx, req, emit)
			})
		})
	}
	for _, text := range []string{"明日の天気は？", "こんにちは"} {
		if err := r.Respond(context.Background(), Request{Text: text}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Respond(WithTurnID(context.Background(), "given"), Request{Text: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	if want := "outer:weather inner:weather outer:chat inner:chat outer:chat inner:chat"; strings.Join(order, " ") != want {
		t.Errorf("middleware ran as %v, want %s", order, want)
	}
	if len(ids) != 3 || len(ids[0]) != 16 || ids[0] == ids[1] || ids[2] != "given" {
		t.Errorf("turn ids = %q: want two fresh distinct ids, then the adapter's own", ids)
	}
}
