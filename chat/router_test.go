package chat

import (
	"context"
	"errors"
	"fmt"
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

func TestRouterOrder(t *testing.T) {
	var got string
	r := NewRouter(named("chat", &got))
	// Added in the order the bot adds them; first match wins.
	for _, rt := range []struct {
		name string
		kw   []string
	}{{"reminder", ReminderKeywords}, {"smalltalk", SmalltalkKeywords}, {"weather", WeatherKeywords}} {
		if err := r.Add(rt.name, rt.kw, named(rt.name, &got)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ text, want string }{
		{"明日の朝9時にリマインドして", "reminder"},
		{"雨の日に傘を忘れないように教えて", "reminder"}, // reminder beats weather
		{"Remind me tomorrow at 9", "reminder"},
		{"暇だから天気の話して", "smalltalk"}, // smalltalk beats weather
		{"明日の天気は？", "weather"},
		{"洗濯物は乾く？", "weather"},
		{"What's the WEATHER like", "weather"},
		{"Goのジェネリクスを教えて", "chat"},
		{"", "chat"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got = ""
			if err := r.Respond(context.Background(), Request{Text: tc.text}, nil); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("routed to %q, want %q", got, tc.want)
			}
		})
	}
	if err := r.Add("weather", WeatherKeywords, named("x", &got)); err == nil {
		t.Error("adding a route twice should fail")
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
	if err := r.Add("weather", WeatherKeywords, record); err != nil {
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
	for _, text := range []string{"天気は？", "こんにちは"} {
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
