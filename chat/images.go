package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/vision"
)

// modelEyes tells whether a model can see images and which installed ones
// can; *llm.Pipeline satisfies it.
type modelEyes interface {
	Capabilities(ctx context.Context, model string) (llm.Capabilities, error)
	VisionModels(ctx context.Context) ([]string, error)
}

// Why an image was not shown to the model, as kept in db.MessageImage.
const (
	skipNoVision     = "no_vision"
	skipModelUnknown = "model_unknown"
	skipTooMany      = "too_many"
	skipTooLarge     = "too_large"
	skipTooManyPx    = "too_many_pixels"
	skipUnsupported  = "unsupported"
	skipBroken       = "broken"
	skipNotAllowed   = "not_allowed"
	skipFetchFailed  = "fetch_failed"
)

// turnImages is what a turn does with its images: those for the model,
// what is kept of each, and the lines that tell the user what was not seen.
type turnImages struct {
	send  []api.ImageData
	kept  []db.MessageImage
	notes []string
}

// images decides which of req's images the model gets. A model that cannot
// see gets none, and nothing is downloaded; the user is told which
// installed model could. For one that can, at most vision.MaxImages are
// fetched and prepared one after another (only one image's pixels are in
// memory at a time); each one refused becomes a note.
func (c *Conversation) images(ctx context.Context, model string, req Request) turnImages {
	var out turnImages
	var atts []Attachment
	for _, a := range req.Attachments {
		if vision.IsImage(a.ContentType, a.Filename) {
			atts = append(atts, a)
		}
	}
	if len(atts) == 0 && req.RepliedAttachments == nil {
		return out
	}
	eyes, known := c.Pipeline.(modelEyes)
	if known {
		caps, err := eyes.Capabilities(ctx, model)
		switch {
		case err != nil:
			// The turn fails with its own notice (model missing, Ollama down).
			out.skipAll(atts, skipModelUnknown)
			return out
		case !caps.Vision:
			if len(atts) > 0 {
				out.skipAll(atts, skipNoVision)
				out.notes = append(out.notes, c.noVisionNote(ctx, eyes, model))
			}
			return out
		}
	}
	if req.RepliedAttachments != nil && len(atts) < vision.MaxImages {
		more, err := req.RepliedAttachments(ctx)
		if err != nil {
			c.logger().WarnContext(ctx, "replied message's attachments", "session", req.Session, "err", err)
		}
		for _, a := range more {
			if vision.IsImage(a.ContentType, a.Filename) {
				a.Replied = true
				atts = append(atts, a)
			}
		}
	}
	over := 0
	for i, a := range atts {
		if i >= vision.MaxImages {
			out.kept = append(out.kept, keptImage(a, skipTooMany))
			over++
			continue
		}
		img, kept, err := c.prepare(ctx, a)
		out.kept = append(out.kept, kept)
		if err != nil {
			c.logger().InfoContext(ctx, "image not shown to the model", "session", req.Session,
				"file", a.Filename, "reason", kept.Skipped, "err", err)
			out.notes = append(out.notes, fmt.Sprintf("※ 画像「%s」は見ていません: %s", a.Filename, skipReason(kept)))
			continue
		}
		out.send = append(out.send, img.JPEG)
	}
	if over > 0 {
		out.notes = append(out.notes, fmt.Sprintf("※ 画像は1回に%d枚までです。残りの%d枚は見ていません。", vision.MaxImages, over))
	}
	return out
}

// prepare fetches and prepares one image. What the platform reported is
// checked first, so a file known to be too big is never downloaded.
func (c *Conversation) prepare(ctx context.Context, a Attachment) (vision.Image, db.MessageImage, error) {
	kept := keptImage(a, "")
	fail := func(skip string, err error) (vision.Image, db.MessageImage, error) {
		kept.Skipped = skip
		return vision.Image{}, kept, err
	}
	switch {
	case a.Size > vision.MaxBytes:
		return fail(skipTooLarge, fmt.Errorf("%w: %d bytes reported", vision.ErrTooLarge, a.Size))
	case int64(a.Width)*int64(a.Height) > vision.MaxPixels:
		return fail(skipTooManyPx, fmt.Errorf("%w: %d×%d reported", vision.ErrTooManyPixels, a.Width, a.Height))
	case !vision.Supported(a.ContentType, a.Filename):
		return fail(skipUnsupported, fmt.Errorf("%w: %q", vision.ErrFormat, a.ContentType))
	case a.Load == nil:
		return fail(skipFetchFailed, errors.New("the adapter cannot load it"))
	}
	data, err := a.Load(ctx)
	if err != nil {
		return fail(skipOf(err, skipFetchFailed), err)
	}
	kept.Size = len(data)
	img, err := vision.Prepare(data)
	if img.SourceWidth > 0 {
		kept.Width, kept.Height = img.SourceWidth, img.SourceHeight
	}
	if err != nil {
		return fail(skipOf(err, skipBroken), err)
	}
	kept.SentWidth, kept.SentHeight = img.Width, img.Height
	return img, kept, nil
}

func (t *turnImages) skipAll(atts []Attachment, skip string) {
	for _, a := range atts {
		t.kept = append(t.kept, keptImage(a, skip))
	}
}

func keptImage(a Attachment, skip string) db.MessageImage {
	return db.MessageImage{
		Name: a.Filename, ContentType: a.ContentType, Size: a.Size, Width: a.Width, Height: a.Height,
		Skipped: skip, Replied: a.Replied,
	}
}

// skipOf names the reason err gives, or fallback.
func skipOf(err error, fallback string) string {
	switch {
	case errors.Is(err, vision.ErrTooLarge):
		return skipTooLarge
	case errors.Is(err, vision.ErrTooManyPixels):
		return skipTooManyPx
	case errors.Is(err, vision.ErrFormat):
		return skipUnsupported
	case errors.Is(err, vision.ErrBroken):
		return skipBroken
	case errors.Is(err, vision.ErrNotAllowed):
		return skipNotAllowed
	}
	return fallback
}

// skipReason is what the user reads about an image the model did not see.
func skipReason(m db.MessageImage) string {
	switch m.Skipped {
	case skipTooLarge:
		return fmt.Sprintf("ファイルが大きすぎます（%d MB まで）。", vision.MaxBytes>>20)
	case skipTooManyPx:
		if m.Width > 0 {
			return fmt.Sprintf("画素数が多すぎます（%d×%d。約%d万画素まで）。", m.Width, m.Height, vision.MaxPixels/10000)
		}
		return fmt.Sprintf("画素数が多すぎます（約%d万画素まで）。", vision.MaxPixels/10000)
	case skipUnsupported:
		return "対応していない形式です（PNG・JPEG・WebP・GIF のみ）。"
	case skipBroken:
		return "ファイルが壊れているか、画像として読めません。"
	case skipNotAllowed:
		return "Discord 以外の場所にあるファイルは読みません。"
	}
	return "ダウンロードできませんでした。"
}

// noVisionNote tells in one line that model cannot see images and which
// installed model could.
func (c *Conversation) noVisionNote(ctx context.Context, eyes modelEyes, model string) string {
	note := fmt.Sprintf("※ このモデル（%s）は画像を見られないため、画像は読んでいません。", model)
	seers, err := eyes.VisionModels(ctx)
	switch {
	case err != nil:
		c.logger().WarnContext(ctx, "list vision models", "err", err)
		return note
	case len(seers) == 0:
		return note + "画像を見られるモデルはインストールされていません（例: `ollama pull qwen2.5vl`）。"
	}
	if len(seers) > 3 {
		seers = append(seers[:3:3], "…")
	}
	return note + "画像を見られるモデル: " + strings.Join(seers, ", ")
}

// withImages returns msgs with images added to the last user message (the
// turn's own).
func withImages(msgs []api.Message, images []api.ImageData) []api.Message {
	if len(images) == 0 {
		return msgs
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			out := append([]api.Message(nil), msgs...)
			out[i].Images = append(append([]api.ImageData(nil), out[i].Images...), images...)
			return out
		}
	}
	return append(msgs, api.Message{Role: "user", Images: images})
}

// notesBeforeEnd emits the notes as a last paragraph of the answer, just
// before the turn's Done or Failed: the answer comes first, then what the
// model did not see.
func notesBeforeEnd(notes []string, emit func(llm.Event) error) func(llm.Event) error {
	if len(notes) == 0 || emit == nil {
		return emit
	}
	sent := false
	return func(ev llm.Event) error {
		switch ev.(type) {
		case llm.Done, llm.Failed:
			if !sent {
				sent = true
				if err := emit(llm.Text{Text: "\n\n" + strings.Join(notes, "\n")}); err != nil {
					return err
				}
			}
		}
		return emit(ev)
	}
}
