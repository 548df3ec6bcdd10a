package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/vision"
)

func TestAttachmentHosts(t *testing.T) {
	b, err := New(Options{Token: "t", Responder: &fakeResponder{}, APIBase: "http://127.0.0.1:4000/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"https://cdn.discordapp.com/attachments/1/2/cat.png?ex=1&is=2&hm=3", true},
		{"https://media.discordapp.net/attachments/1/2/cat.png", true},
		{"http://cdn.discordapp.com/attachments/1/2/cat.png", false},
		{"https://cdn.discordapp.com:8443/attachments/1/2/cat.png", false},
		{"https://cdn.discordapp.com.evil.example/cat.png", false},
		{"https://evil.example/cdn.discordapp.com/cat.png", false},
		{"http://127.0.0.1:4000/attachments/1/cat.png", true},
		{"http://127.0.0.1:4001/attachments/1/cat.png", false},
		{"http://169.254.169.254/latest/meta-data", false},
		{"file:///etc/passwd", false},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.allowedFileURL(u); got != tc.want {
			t.Errorf("allowedFileURL(%s) = %v, want %v", tc.url, got, tc.want)
		}
	}
}

// download refuses what is not a Discord attachment: another host (also
// by redirect), an answer that is not an image, more than 10 MB.
func TestDownloadRefuses(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("png"))
	}))
	defer other.Close()
	var gotAuth atomic.Bool
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			gotAuth.Store(true)
		}
		switch r.URL.Path {
		case "/ok.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("png bytes"))
		case "/redirect.png":
			http.Redirect(w, r, other.URL+"/x.png", http.StatusFound)
		case "/page.png":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<html>login</html>"))
		case "/declared-big.png":
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Content-Length", fmt.Sprint(vision.MaxBytes+1))
			w.Write(make([]byte, 1024)) // the client stops before the rest
		case "/endless.png":
			w.Header().Set("Content-Type", "image/png")
			chunk := bytes.Repeat([]byte{1}, 64<<10)
			for range 200 { // 12.8 MB unless the client stops reading
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		case "/missing.png":
			http.NotFound(w, r)
		}
	}))
	defer origin.Close()
	b, err := New(Options{Token: "secret", Responder: &fakeResponder{}, APIBase: origin.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := b.download(t.Context(), origin.URL+"/ok.png")
	if err != nil || string(data) != "png bytes" {
		t.Fatalf("allowed origin: %q, %v", data, err)
	}
	for _, tc := range []struct {
		path string
		want error
	}{
		{other.URL + "/x.png", vision.ErrNotAllowed},
		{origin.URL + "/redirect.png", vision.ErrNotAllowed},
		{origin.URL + "/page.png", vision.ErrFormat},
		{origin.URL + "/declared-big.png", vision.ErrTooLarge},
		{origin.URL + "/endless.png", vision.ErrTooLarge},
		{origin.URL + "/missing.png", nil},
		{"::not a url", vision.ErrNotAllowed},
	} {
		_, err := b.download(t.Context(), tc.path)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("download %s: %v, want %v", tc.path, err, tc.want)
		}
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}
	if gotAuth.Load() {
		t.Error("the bot token went out with a download")
	}
}

// loadAll is a responder script that loads every attachment (and the
// replied message's, when it must be fetched) and answers with what came.
func loadAll(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
	atts := req.Attachments
	if req.RepliedAttachments != nil {
		more, err := req.RepliedAttachments(ctx)
		if err != nil {
			return err
		}
		atts = append(atts, more...)
	}
	var lines []string
	for _, a := range atts {
		data, err := a.Load(ctx)
		lines = append(lines, fmt.Sprintf("%s replied=%v %d×%d %q %v", a.Filename, a.Replied, a.Width, a.Height, data, err))
	}
	if err := emit(llm.Text{Text: strings.Join(lines, "\n")}); err != nil {
		return err
	}
	return emit(llm.Done{})
}

func TestAttachmentsOfTheMentionAndOfTheMessageRepliedTo(t *testing.T) {
	h := start(t, nil)
	h.resp.script = loadAll
	cat := h.srv.AddAttachment("cat.png", "image/png", []byte("cat"))
	cat.Width, cat.Height = 40, 30
	dog := h.srv.AddAttachment("dog.jpg", "image/jpeg", []byte("dog"))
	old := h.srv.SendMessage(&discordgo.Message{
		ChannelID: chanID, GuildID: guildID, Author: &discordgo.User{ID: "7", Username: "u7"},
		Content: "うちの犬", Attachments: []*discordgo.MessageAttachment{dog},
	})

	// Discord sent the replied message along.
	h.srv.SendMessage(&discordgo.Message{
		ChannelID: chanID, GuildID: guildID, Type: discordgo.MessageTypeReply,
		Author:  &discordgo.User{ID: "8", Username: "u8"},
		Content: "<@" + h.srv.BotID() + "> 比べて", Mentions: []*discordgo.User{{ID: h.srv.BotID()}},
		Attachments:       []*discordgo.MessageAttachment{cat},
		MessageReference:  &discordgo.MessageReference{MessageID: old.ID, ChannelID: chanID, GuildID: guildID},
		ReferencedMessage: old,
	})
	h.waitText(chanID, "cat.png replied=false 40×30 \"cat\" <nil>\ndog.jpg replied=true 0×0 \"dog\" <nil>")

	// It did not: the message is fetched, only when the files are used.
	h.srv.SendMessage(&discordgo.Message{
		ChannelID: chanID, GuildID: guildID, Type: discordgo.MessageTypeReply,
		Author:  &discordgo.User{ID: "8", Username: "u8"},
		Content: "<@" + h.srv.BotID() + "> これは？", Mentions: []*discordgo.User{{ID: h.srv.BotID()}},
		MessageReference: &discordgo.MessageReference{MessageID: old.ID, ChannelID: chanID, GuildID: guildID},
	})
	h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) == 2 && ms[1].Content == "dog.jpg replied=true 0×0 \"dog\" <nil>"
	})
	if got := len(h.srv.Downloads()); got != 3 {
		t.Errorf("%d downloads, want 3 (cat, dog, dog)", got)
	}
}
