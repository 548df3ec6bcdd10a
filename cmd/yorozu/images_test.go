package main

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/vision/visiontest"
)

// mentionWith sends a mention from alice carrying attachments.
func (h *harness) mentionWith(text string, atts ...*discordgo.MessageAttachment) *discordgo.Message {
	return h.discord.SendMessage(&discordgo.Message{
		ChannelID: channelID, GuildID: guildID,
		Content:     "<@" + h.discord.BotID() + "> " + text,
		Author:      &discordgo.User{ID: aliceID, Username: "alice"},
		Mentions:    []*discordgo.User{{ID: h.discord.BotID(), Username: "yorozu", Bot: true}},
		Attachments: atts,
	})
}

// lastImages are the images of the user's message in the last turn sent
// to the model, each as its JPEG size.
func (h *harness) lastImages(t *testing.T) []string {
	t.Helper()
	turns := h.turns()
	msgs := turns[len(turns)-1].Messages
	var out []string
	for _, img := range msgs[len(msgs)-1].Images {
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(img))
		if err != nil {
			t.Fatalf("the model got an image that is not a JPEG: %v", err)
		}
		out = append(out, fmt.Sprintf("%d×%d", cfg.Width, cfg.Height))
	}
	return out
}

// keptImages are what the database kept of the images of the user's
// message with platform id id.
func (h *harness) keptImages(t *testing.T, id string) []db.MessageImage {
	t.Helper()
	h.waitCount(t, `SELECT count(*) FROM messages WHERE platform_message_id = '`+id+`'`, 1)
	var msgID int64
	if err := h.pool.QueryRow(context.Background(), `SELECT id FROM messages WHERE platform_message_id = $1`, id).Scan(&msgID); err != nil {
		t.Fatal(err)
	}
	imgs, err := db.MessageImages(context.Background(), h.pool, []int64{msgID})
	if err != nil {
		t.Fatal(err)
	}
	return imgs[msgID]
}

func TestImagesFromDiscordReachAVisionModel(t *testing.T) {
	// Capabilities are learnt at start, so the model can see before yorozu runs.
	h := startHarness(t, nil, func(h *harness) { h.ollama.AddModel(model, "completion", "tools", "vision") })

	// A 4,000×3,000 PNG, served by Discord's CDN, reaches the model as
	// 1,024×768, and the turn keeps its name, size and dimensions.
	png := visiontest.LargePNG()
	h.script(ollamatest.Text("グラデーションの画像です。"))
	q := h.mentionWith("これは何？", h.discord.AddAttachment("grad.png", "image/png", png))
	h.waitReply(t, 1, equals("グラデーションの画像です。"))
	if got := h.lastImages(t); len(got) != 1 || got[0] != "1024×768" {
		t.Errorf("model got images %v, want one of 1024×768", got)
	}
	want := db.MessageImage{Name: "grad.png", ContentType: "image/png", Size: len(png), Width: 4000, Height: 3000, SentWidth: 1024, SentHeight: 768}
	if got := h.keptImages(t, q.ID); len(got) != 1 || got[0] != want {
		t.Errorf("kept %+v, want %+v", got, want)
	}

	// A header claiming 20,000×20,000 is refused from its few bytes; the
	// answer comes all the same, with a line about the picture.
	h.script(ollamatest.Text("画像は届きませんでしたが、お答えします。"))
	h.mentionWith("これも", h.discord.AddAttachment("bomb.png", "image/png", visiontest.BombPNG(20000, 20000)))
	h.waitReply(t, 2, equals("画像は届きませんでしたが、お答えします。\n\n※ 画像「bomb.png」は見ていません: 画素数が多すぎます（20000×20000。約1677万画素まで）。"))
	if got := h.lastImages(t); len(got) != 0 {
		t.Errorf("model got %v for a decompression bomb", got)
	}

	// An attachment URL on another host is never requested.
	var asked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write(visiontest.PNG(10, 10))
	}))
	defer other.Close()
	h.script(ollamatest.Text("はい。"))
	h.mentionWith("見て", &discordgo.MessageAttachment{ID: "1", Filename: "x.png", ContentType: "image/png", Size: 100, URL: other.URL + "/x.png"})
	h.waitReply(t, 3, equals("はい。\n\n※ 画像「x.png」は見ていません: Discord 以外の場所にあるファイルは読みません。"))
	if n := asked.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}

	// A mention replying to a message with a photo: the photo is seen,
	// fetched with the message when Discord did not send it along.
	photo := h.discord.AddAttachment("photo.jpg", "image/jpeg", visiontest.JPEG(2048, 1536))
	old := h.discord.SendMessage(&discordgo.Message{
		ChannelID: channelID, GuildID: guildID, Author: &discordgo.User{ID: bobID, Username: "bob"},
		Content: "旅行の写真", Attachments: []*discordgo.MessageAttachment{photo},
	})
	h.script(ollamatest.Text("海の写真ですね。"))
	h.discord.SendMessage(&discordgo.Message{
		ChannelID: channelID, GuildID: guildID, Type: discordgo.MessageTypeReply,
		Content:          "<@" + h.discord.BotID() + "> どこ？",
		Author:           &discordgo.User{ID: aliceID, Username: "alice"},
		Mentions:         []*discordgo.User{{ID: h.discord.BotID(), Username: "yorozu", Bot: true}},
		MessageReference: &discordgo.MessageReference{MessageID: old.ID, ChannelID: channelID, GuildID: guildID},
	})
	h.waitReply(t, 4, equals("海の写真ですね。"))
	if got := h.lastImages(t); len(got) != 1 || got[0] != "1024×768" {
		t.Errorf("model got %v for the replied-to photo, want one of 1024×768", got)
	}
}

func TestModelWithoutVisionSaysWhichCouldSee(t *testing.T) {
	h := startHarness(t, nil, func(h *harness) { h.ollama.AddModel("gemma3:4b", "completion", "vision") })
	h.script(ollamatest.Text("文字だけならお答えできます。"))
	q := h.mentionWith("これは何？", h.discord.AddAttachment("cat.png", "image/png", visiontest.PNG(64, 64)))
	h.waitReply(t, 1, equals("文字だけならお答えできます。\n\n※ このモデル（qwen3:4b）は画像を見られないため、画像は読んでいません。画像を見られるモデル: gemma3:4b"))
	if got := h.lastImages(t); len(got) != 0 {
		t.Errorf("a model without vision got images %v", got)
	}
	if d := h.discord.Downloads(); len(d) != 0 {
		t.Errorf("downloaded %v for a model that cannot see", d)
	}
	if got := h.keptImages(t, q.ID); len(got) != 1 || got[0].Name != "cat.png" || got[0].Skipped != "no_vision" {
		t.Errorf("kept %+v", got)
	}
}
