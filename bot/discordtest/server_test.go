package discordtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
)

// session is a real discordgo session whose REST calls go to the fake.
func session(t *testing.T, srv *discordtest.Server) *discordgo.Session {
	t.Helper()
	s, err := discordgo.New("Bot test")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(srv.URL())
	s.Client = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host, r.Host = base.Scheme, base.Host, ""
		return http.DefaultTransport.RoundTrip(r)
	})}
	return s
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestREST(t *testing.T) {
	srv := discordtest.New(t)
	s := session(t, srv)
	srv.AddChannel("1")

	m, err := s.ChannelMessageSend("1", "hello")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ChannelMessageEdit("1", m.ID, "hello, edited"); err != nil {
		t.Fatal(err)
	}
	if got := srv.Messages("1"); len(got) != 1 || got[0].Content != "hello, edited" || got[0].Edits != 1 {
		t.Errorf("messages = %+v", got)
	}

	_, err = s.ChannelMessageSend("404", "x")
	var rest *discordgo.RESTError
	if !errors.As(err, &rest) || rest.Message == nil || rest.Message.Code != 10003 {
		t.Errorf("unknown channel: err = %v, want code 10003", err)
	}

	srv.FailChannel("1", http.StatusForbidden, 50013, "Missing Permissions")
	if _, err := s.ChannelMessageSend("1", "x"); !errors.As(err, &rest) || rest.Message.Code != 50013 {
		t.Errorf("failed channel: err = %v, want code 50013", err)
	}

	srv.AddChannel("2")
	if _, err := s.ChannelMessageSend("2", strings.Repeat("あ", 2001)); err == nil {
		t.Error("a 2,001-character message was accepted")
	}
}

func TestNonceIsEnforced(t *testing.T) {
	srv := discordtest.New(t)
	s := session(t, srv)
	srv.AddChannel("1")
	body := map[string]any{"content": "リマインドです", "nonce": "rem-7", "enforce_nonce": true}
	var first, second discordgo.Message
	for _, out := range []*discordgo.Message{&first, &second} {
		raw, err := s.RequestWithBucketID("POST", discordgo.EndpointChannelMessages("1"), body, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := discordgo.Unmarshal(raw, out); err != nil {
			t.Fatal(err)
		}
	}
	if first.ID != second.ID || len(srv.Messages("1")) != 1 {
		t.Errorf("same nonce created two messages: %s, %s", first.ID, second.ID)
	}
}

func TestRateLimitNextIsRetried(t *testing.T) {
	srv := discordtest.New(t)
	s := session(t, srv)
	srv.AddChannel("1")
	srv.RateLimitNext("POST", "/channels/1/messages", 1, 20*time.Millisecond)
	if _, err := s.ChannelMessageSend("1", "after 429"); err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	if len(calls) != 2 || calls[0].Status != 429 || calls[1].Status != 200 {
		t.Errorf("calls = %+v, want a 429 then a 200", calls)
	}
}

func TestWebhookAndCommands(t *testing.T) {
	srv := discordtest.New(t)
	s := session(t, srv)
	srv.AddWebhook("10", "tok", "3")
	m, err := s.WebhookExecute("10", "tok", true, &discordgo.WebhookParams{Content: "天気です"})
	if err != nil || m.ChannelID != "3" || m.WebhookID != "10" {
		t.Fatalf("webhook execute = %+v, %v", m, err)
	}
	if _, err := s.WebhookExecute("10", "wrong", true, &discordgo.WebhookParams{Content: "x"}); err == nil {
		t.Error("a wrong webhook token was accepted")
	}
	cmds, err := s.ApplicationCommandBulkOverwrite(srv.AppID(), "", []*discordgo.ApplicationCommand{{Name: "remind", Description: "d"}})
	if err != nil || len(cmds) != 1 || cmds[0].ID == "" {
		t.Fatalf("bulk overwrite = %+v, %v", cmds, err)
	}
}

func TestGatewayDispatchesMessages(t *testing.T) {
	srv := discordtest.New(t)
	s := session(t, srv)
	s.SyncEvents = true
	got := make(chan *discordgo.MessageCreate, 1)
	s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) { got <- m })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := srv.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if s.State.User == nil || s.State.User.ID != srv.BotID() {
		t.Errorf("READY user = %+v", s.State.User)
	}
	srv.SendMessage(&discordgo.Message{ChannelID: "1", Author: &discordgo.User{ID: "2"}, Content: "やあ"})
	select {
	case m := <-got:
		if m.Content != "やあ" {
			t.Errorf("content = %q", m.Content)
		}
	case <-ctx.Done():
		t.Fatal("no MESSAGE_CREATE")
	}
}

// GET /channels/{id}/messages lists the channel newest first, with paging,
// each message with its nonce and creation time; after ForgetNonces a
// repeated POST makes a second message, as Discord does once its nonce
// memory has passed.
func TestListMessagesAndForgetNonces(t *testing.T) {
	srv := discordtest.New(t)
	s := session(t, srv)
	srv.AddChannel("1")
	before := time.Now().Add(-time.Second)
	post := func(content, nonce string) string {
		t.Helper()
		body := map[string]any{"content": content, "nonce": nonce, "enforce_nonce": true}
		raw, err := s.RequestWithBucketID("POST", discordgo.EndpointChannelMessages("1"), body, "")
		if err != nil {
			t.Fatal(err)
		}
		var m discordgo.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	a, b, c := post("a", "n1"), post("b", "n2"), post("c", "n3")
	if again := post("a again", "n1"); again != a {
		t.Errorf("a repeated nonce made message %s, want %s", again, a)
	}

	type listed struct {
		ID        string    `json:"id"`
		Content   string    `json:"content"`
		Nonce     string    `json:"nonce"`
		Timestamp time.Time `json:"timestamp"`
	}
	list := func(query string) []listed {
		t.Helper()
		raw, err := s.RequestWithBucketID("GET", discordgo.EndpointChannelMessages("1")+query, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		var out []listed
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := list("")
	if len(all) != 3 || all[0].ID != c || all[1].ID != b || all[2].ID != a || all[2].Nonce != "n1" ||
		all[0].Timestamp.Before(before) || all[0].Timestamp.After(time.Now()) {
		t.Errorf("list = %+v, want c, b, a newest first with nonces and times", all)
	}
	if got := list("?limit=1&before=" + c); len(got) != 1 || got[0].ID != b {
		t.Errorf("before c, limit 1 = %+v, want b", got)
	}
	if got := list("?after=" + a); len(got) != 2 || got[1].ID != b {
		t.Errorf("after a = %+v, want c, b", got)
	}
	if _, err := s.RequestWithBucketID("GET", discordgo.EndpointChannelMessages("1")+"?limit=500", nil, ""); err == nil {
		t.Error("limit 500 accepted")
	}

	srv.ForgetNonces()
	if again := post("a again", "n1"); again == a {
		t.Error("a forgotten nonce still answered with the first message")
	}
	if n := len(srv.Messages("1")); n != 4 {
		t.Errorf("%d messages, want 4 once the nonce was forgotten", n)
	}
}

func TestSingleMessageAndThreads(t *testing.T) {
	srv := discordtest.New(t)
	s := session(t, srv)
	srv.AddThread("5", "1")
	first := srv.SendMessage(&discordgo.Message{ChannelID: "1", Content: "最初", Author: &discordgo.User{ID: "7", Username: "alice"}})
	reply := srv.SendMessage(&discordgo.Message{ChannelID: "1", Content: "返信", Author: &discordgo.User{ID: "8", Username: "bob"},
		MessageReference: &discordgo.MessageReference{MessageID: first.ID, ChannelID: "1"}})
	if reply.Type != discordgo.MessageTypeReply || reply.ReferencedMessage == nil || reply.ReferencedMessage.Content != "最初" {
		t.Errorf("MESSAGE_CREATE of a reply = type %d, referenced %+v", reply.Type, reply.ReferencedMessage)
	}

	got, err := s.ChannelMessage("1", reply.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != "返信" || got.Author.Username != "bob" || got.MessageReference == nil || got.MessageReference.MessageID != first.ID ||
		got.ReferencedMessage == nil || got.ReferencedMessage.Author.Username != "alice" {
		t.Errorf("GET message = %+v", got)
	}
	var rest *discordgo.RESTError
	if _, err := s.ChannelMessage("1", "999"); !errors.As(err, &rest) || rest.Message.Code != 10008 {
		t.Errorf("unknown message: err = %v, want code 10008", err)
	}
	if _, err := s.ChannelMessage("5", first.ID); !errors.As(err, &rest) || rest.Message.Code != 10008 {
		t.Errorf("another channel's message: err = %v, want code 10008", err)
	}

	th, err := s.Channel("5")
	if err != nil || !th.IsThread() || th.ParentID != "1" {
		t.Errorf("GET thread = %+v, %v", th, err)
	}
	if ch, err := s.Channel("1"); err != nil || ch.IsThread() {
		t.Errorf("GET channel = %+v, %v", ch, err)
	}
}

// UndecodableAnswers: the write happens, discordgo cannot decode its answer
// (an error after the 2xx, not a RESTError), and the methods not named are
// answered as before.
func TestUndecodableAnswers(t *testing.T) {
	srv := discordtest.New(t)
	s := session(t, srv)
	srv.AddChannel("1")
	srv.UndecodableAnswers("1", http.MethodPatch)
	m, err := s.ChannelMessageSend("1", "hello")
	if err != nil {
		t.Fatalf("create, only edits spoiled: %v", err)
	}
	_, err = s.ChannelMessageEdit("1", m.ID, "hello, edited")
	var rest *discordgo.RESTError
	if !errors.Is(err, discordgo.ErrJSONUnmarshal) || errors.As(err, &rest) {
		t.Errorf("edit: err = %v, want discordgo's unmarshal error", err)
	}
	srv.UndecodableAnswers("1", http.MethodPost, http.MethodPatch)
	if _, err := s.ChannelMessageSend("1", "second"); !errors.Is(err, discordgo.ErrJSONUnmarshal) {
		t.Errorf("create: err = %v, want discordgo's unmarshal error", err)
	}
	got := srv.Messages("1")
	if len(got) != 2 || got[0].Content != "hello, edited" || got[1].Content != "second" {
		t.Errorf("messages = %+v; want the edit and the second message applied", got)
	}
	srv.UndecodableAnswers("1")
	if _, err := s.ChannelMessageEdit("1", m.ID, "readable again"); err != nil {
		t.Errorf("edit after UndecodableAnswers(\"1\"): %v", err)
	}
}

// An interaction's first callback is refused as Discord refuses it once the
// deadline after the interaction has passed: 404 Unknown interaction.
func TestLateInteractionCallbackRefused(t *testing.T) {
	srv := discordtest.New(t)
	s := session(t, srv)
	answer := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "pong"}}
	in := &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: "1", Token: "tok1",
		Data: discordgo.ApplicationCommandInteractionData{Name: "ping"}}
	srv.SendInteraction(in)
	if err := s.InteractionRespond(in, answer); err != nil {
		t.Fatalf("callback in time: %v", err)
	}

	srv.SetInteractionDeadline(time.Nanosecond) // passed by the time the callback arrives
	late := &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: "1", Token: "tok2",
		Data: discordgo.ApplicationCommandInteractionData{Name: "ping"}}
	srv.SendInteraction(late)
	err := s.InteractionRespond(late, answer)
	var rest *discordgo.RESTError
	if !errors.As(err, &rest) || rest.Response.StatusCode != http.StatusNotFound || rest.Message == nil || rest.Message.Code != 10062 {
		t.Errorf("late callback: err = %v, want 404 Unknown interaction (10062)", err)
	}
	if _, ok := srv.Original(late.ID); ok || len(srv.InteractionResponses()) != 1 {
		t.Errorf("a refused callback was kept: %+v", srv.InteractionResponses())
	}
}
