package chat

import (
	"context"
	"testing"

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
	// Added in the order of DESIGN.md; first match wins.
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
