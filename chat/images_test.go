package chat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/jpeg"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/vision"
	"github.com/yorozu-bot/yorozu/vision/visiontest"
)

const answer = "はい、見ました。"

// file is an attachment whose bytes come from memory; loads counts how
// often it was read.
func file(name, contentType string, data []byte, loads *atomic.Int32) Attachment {
	return Attachment{
		Filename: name, ContentType: contentType, Size: len(data),
		Load: func(context.Context) ([]byte, error) {
			if loads != nil {
				loads.Add(1)
			}
			return data, nil
		},
	}
}

// turn runs one turn of c with the attachments and returns what the user
// read, the images the model got and what was kept of them.
func turn(t *testing.T, c *Conversation, srv *ollamatest.Server, req Request) (string, []api.ImageData, []db.MessageImage) {
	t.Helper()
	srv.Script(ollamatest.Text(answer))
	if req.Session == "" {
		req.Session, req.Source, req.ChannelID, req.AuthorID, req.Text = "discord:channel:9", "discord", "9", "42", "これ何？"
	}
	var text strings.Builder
	err := c.Handle(context.Background(), req, func(e llm.Event) error {
		if tx, ok := e.(llm.Text); ok {
			text.WriteString(tx.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	images := last[len(last)-1].Images
	if last[len(last)-1].Content != req.Text {
		t.Errorf("the model got %q, want the user's text", last[len(last)-1].Content)
	}
	return text.String(), images, keptImages(t, c, req.Session)
}

// seeing is newConversation whose model can see images, and the pool its
// memory keeps turns in.
func seeing(t *testing.T, caps ...string) (*Conversation, *ollamatest.Server) {
	t.Helper()
	c, srv, _ := newConversation(t)
	pool := dbtest.New(t)
	c.Store = memory.New(pool, memory.Options{})
	pools[c] = pool
	if len(caps) > 0 {
		srv.AddModel("qwen3:4b", caps...)
	}
	return c, srv
}

var pools = map[*Conversation]*pgxpool.Pool{}

func keptImages(t *testing.T, c *Conversation, key string) []db.MessageImage {
	t.Helper()
	pool := pools[c]
	ctx := context.Background()
	msgs := dbtest.RecentMessages(t, pool, key, 2)
	if len(msgs) != 2 {
		t.Fatalf("stored %v", msgs)
	}
	imgs, err := db.MessageImages(ctx, pool, []int64{msgs[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	return imgs[msgs[0].ID]
}

func size(t *testing.T, img api.ImageData) string {
	t.Helper()
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("the model got an image that is not a JPEG: %v", err)
	}
	return fmt.Sprintf("%d×%d", cfg.Width, cfg.Height)
}

func TestVisionModelSeesTheScaledImage(t *testing.T) {
	c, srv := seeing(t, "completion", "tools", "vision")
	png := visiontest.LargePNG()
	text, images, kept := turn(t, c, srv, Request{Attachments: []Attachment{file("cat.png", "image/png", png, nil)}})
	if text != answer {
		t.Errorf("user read %q, want the answer alone", text)
	}
	if len(images) != 1 || size(t, images[0]) != "1024×768" {
		t.Fatalf("model got %d images", len(images))
	}
	want := db.MessageImage{Name: "cat.png", ContentType: "image/png", Size: len(png), Width: 4000, Height: 3000, SentWidth: 1024, SentHeight: 768}
	if len(kept) != 1 || kept[0] != want {
		t.Errorf("kept %+v, want %+v", kept, want)
	}
}

func TestModelWithoutVisionGetsNoImage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		others map[string][]string
		note   string
	}{
		{"another model can see", map[string][]string{"gemma3:4b": {"completion", "vision"}, "qwen2.5vl:7b": {"completion", "vision", "tools"}},
			"画像を見られるモデル: gemma3:4b, qwen2.5vl:7b"},
		{"none can", nil, "画像を見られるモデルはインストールされていません（例: `ollama pull qwen2.5vl`）。"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, srv := seeing(t)
			for name, caps := range tc.others {
				srv.AddModel(name, caps...)
			}
			var loads, replied atomic.Int32
			text, images, kept := turn(t, c, srv, Request{
				Attachments: []Attachment{file("cat.png", "image/png", visiontest.PNG(64, 64), &loads)},
				RepliedAttachments: func(context.Context) ([]Attachment, error) {
					replied.Add(1)
					return nil, nil
				},
			})
			if len(images) != 0 {
				t.Errorf("model without vision got %d images", len(images))
			}
			wantText := answer + "\n\n※ このモデル（qwen3:4b）は画像を見られないため、画像は読んでいません。" + tc.note
			if text != wantText {
				t.Errorf("user read\n%q\nwant\n%q", text, wantText)
			}
			if loads.Load() != 0 || replied.Load() != 0 {
				t.Errorf("%d downloads, %d replied-message fetches for a model that cannot see", loads.Load(), replied.Load())
			}
			if len(kept) != 1 || kept[0].Skipped != "no_vision" || kept[0].Name != "cat.png" {
				t.Errorf("kept %+v", kept)
			}
		})
	}
}

// Bad input never costs the answer: the text comes whole, and one line
// says what happened to each image that was not seen.
func TestBadImagesGetANoteAndTheAnswer(t *testing.T) {
	good := visiontest.PNG(300, 200)
	pdf := []byte("%PDF-1.7 not a picture")
	tests := []struct {
		name      string
		atts      func(loads *atomic.Int32) []Attachment
		sent      int
		notes     []string
		skipped   []string
		wantLoads int32
	}{
		{"broken file", func(l *atomic.Int32) []Attachment {
			return []Attachment{file("half.png", "image/png", good[:len(good)/2], l)}
		}, 0, []string{"※ 画像「half.png」は見ていません: ファイルが壊れているか、画像として読めません。"}, []string{"broken"}, 1},
		{"too many images", func(l *atomic.Int32) []Attachment {
			var out []Attachment
			for i := range 6 {
				out = append(out, file(fmt.Sprintf("p%d.png", i), "image/png", good, l))
			}
			return out
		}, 4, []string{"※ 画像は1回に4枚までです。残りの2枚は見ていません。"}, []string{"", "", "", "", "too_many", "too_many"}, 4},
		{"oversized file reported", func(l *atomic.Int32) []Attachment {
			a := file("huge.jpg", "image/jpeg", good, l)
			a.Size = 11 << 20
			return []Attachment{a}
		}, 0, []string{"※ 画像「huge.jpg」は見ていません: ファイルが大きすぎます（10 MB まで）。"}, []string{"too_large"}, 0},
		{"oversized file found while reading", func(l *atomic.Int32) []Attachment {
			a := file("huge.jpg", "image/jpeg", nil, l)
			a.Size = 0
			a.Load = func(context.Context) ([]byte, error) { l.Add(1); return nil, vision.ErrTooLarge }
			return []Attachment{a}
		}, 0, []string{"※ 画像「huge.jpg」は見ていません: ファイルが大きすぎます（10 MB まで）。"}, []string{"too_large"}, 1},
		{"decompression bomb", func(l *atomic.Int32) []Attachment {
			return []Attachment{file("bomb.png", "image/png", visiontest.BombPNG(20000, 20000), l)}
		}, 0, []string{"※ 画像「bomb.png」は見ていません: 画素数が多すぎます（20000×20000。約1677万画素まで）。"}, []string{"too_many_pixels"}, 1},
		{"too many pixels reported", func(l *atomic.Int32) []Attachment {
			a := file("wide.png", "image/png", good, l)
			a.Width, a.Height = 20000, 20000
			return []Attachment{a}
		}, 0, []string{"※ 画像「wide.png」は見ていません: 画素数が多すぎます（20000×20000。約1677万画素まで）。"}, []string{"too_many_pixels"}, 0},
		{"unsupported type", func(l *atomic.Int32) []Attachment {
			return []Attachment{file("logo.svg", "image/svg+xml", []byte("<svg/>"), l)}
		}, 0, []string{"※ 画像「logo.svg」は見ていません: 対応していない形式です（PNG・JPEG・WebP・GIF のみ）。"}, []string{"unsupported"}, 0},
		{"wrong content type: a PDF called PNG", func(l *atomic.Int32) []Attachment {
			return []Attachment{file("scan.png", "image/png", pdf, l)}
		}, 0, []string{"※ 画像「scan.png」は見ていません: 対応していない形式です（PNG・JPEG・WebP・GIF のみ）。"}, []string{"unsupported"}, 1},
		{"not an image at all is left alone", func(l *atomic.Int32) []Attachment {
			return []Attachment{file("doc.pdf", "application/pdf", pdf, l)}
		}, 0, nil, nil, 0},
		{"refused host", func(l *atomic.Int32) []Attachment {
			a := file("x.png", "image/png", good, l)
			a.Load = func(context.Context) ([]byte, error) {
				l.Add(1)
				return nil, fmt.Errorf("get evil.example: %w", vision.ErrNotAllowed)
			}
			return []Attachment{a}
		}, 0, []string{"※ 画像「x.png」は見ていません: Discord 以外の場所にあるファイルは読みません。"}, []string{"not_allowed"}, 1},
		{"download failed", func(l *atomic.Int32) []Attachment {
			a := file("x.png", "image/png", good, l)
			a.Load = func(context.Context) ([]byte, error) { l.Add(1); return nil, errors.New("503") }
			return []Attachment{a}
		}, 0, []string{"※ 画像「x.png」は見ていません: ダウンロードできませんでした。"}, []string{"fetch_failed"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, srv := seeing(t, "completion", "tools", "vision")
			var loads atomic.Int32
			text, images, kept := turn(t, c, srv, Request{Attachments: tc.atts(&loads)})
			want := answer
			if len(tc.notes) > 0 {
				want += "\n\n" + strings.Join(tc.notes, "\n")
			}
			if text != want {
				t.Errorf("user read\n%q\nwant\n%q", text, want)
			}
			if len(images) != tc.sent {
				t.Errorf("model got %d images, want %d", len(images), tc.sent)
			}
			if loads.Load() != tc.wantLoads {
				t.Errorf("%d downloads, want %d", loads.Load(), tc.wantLoads)
			}
			var skipped []string
			for _, k := range kept {
				skipped = append(skipped, k.Skipped)
			}
			if strings.Join(skipped, ",") != strings.Join(tc.skipped, ",") {
				t.Errorf("kept skipped %q, want %q", skipped, tc.skipped)
			}
		})
	}
}

// The replied-to message's images come after the message's own, within
// the same limit, and are marked as the replied message's.
func TestRepliedImagesCountTowardsTheLimit(t *testing.T) {
	c, srv := seeing(t, "completion", "tools", "vision")
	good := visiontest.PNG(300, 200)
	own := []Attachment{file("a.png", "image/png", good, nil), file("b.png", "image/png", good, nil)}
	_, images, kept := turn(t, c, srv, Request{
		Attachments: own,
		RepliedAttachments: func(context.Context) ([]Attachment, error) {
			return []Attachment{
				file("notes.txt", "text/plain", []byte("hi"), nil),
				file("c.png", "image/png", good, nil), file("d.png", "image/png", good, nil), file("e.png", "image/png", good, nil),
			}, nil
		},
	})
	if len(images) != 4 {
		t.Errorf("model got %d images, want 4", len(images))
	}
	var names []string
	for _, k := range kept {
		names = append(names, fmt.Sprintf("%s:%v:%s", k.Name, k.Replied, k.Skipped))
	}
	if got := strings.Join(names, " "); got != "a.png:false: b.png:false: c.png:true: d.png:true: e.png:true:too_many" {
		t.Errorf("kept %s", got)
	}
}
