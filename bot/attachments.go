package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/vision"
)

// attachmentTimeout bounds the download of one attachment.
const attachmentTimeout = 30 * time.Second

// attachmentHosts are where Discord serves attachments. Files are fetched
// only from these (https) and from the origin of the API base (a proxy or
// a test server); an attachment URL anywhere else is never requested.
var attachmentHosts = map[string]bool{"cdn.discordapp.com": true, "media.discordapp.net": true}

// chatAttachments turns a message's attachments into the request's, each
// able to load its bytes.
func (b *Bot) chatAttachments(list []*discordgo.MessageAttachment, replied bool) []chat.Attachment {
	var out []chat.Attachment
	for _, a := range list {
		if a == nil {
			continue
		}
		link := a.URL
		out = append(out, chat.Attachment{
			URL: a.URL, Filename: a.Filename, ContentType: a.ContentType, Size: a.Size,
			Width: a.Width, Height: a.Height, Replied: replied,
			Load: func(ctx context.Context) ([]byte, error) { return b.download(ctx, link) },
			LoadDocument: func(ctx context.Context) ([]byte, error) {
				return b.fetchFile(ctx, link, chat.MaxDocumentBytes, func(string) bool { return true })
			},
		})
	}
	return out
}

// withAttachments fills in the files of req from m: its own, and those of
// the message it replies to. Discord usually sends that message along;
// when it did not, it is fetched, but only if the turn uses its files.
func (b *Bot) withAttachments(req chat.Request, m *discordgo.Message) chat.Request {
	req.Attachments = b.chatAttachments(m.Attachments, false)
	switch ref := m.MessageReference; {
	case m.ReferencedMessage != nil:
		req.Attachments = append(req.Attachments, b.chatAttachments(m.ReferencedMessage.Attachments, true)...)
	case m.Type == discordgo.MessageTypeReply && ref != nil && ref.MessageID != "":
		channelID := ref.ChannelID
		if channelID == "" {
			channelID = m.ChannelID
		}
		req.RepliedAttachments = func(ctx context.Context) ([]chat.Attachment, error) {
			return b.repliedAttachments(ctx, channelID, ref.MessageID)
		}
	}
	return req
}

// repliedAttachments fetches the message a mention replied to and returns
// its files (for images; the reply chain's text is another matter).
func (b *Bot) repliedAttachments(ctx context.Context, channelID, messageID string) ([]chat.Attachment, error) {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	m, err := b.session.ChannelMessage(channelID, messageID, discordgo.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("fetch replied message %s: %w", messageID, err)
	}
	return b.chatAttachments(m.Attachments, true), nil
}

// allowedFileURL reports whether u is a place attachments may be fetched
// from.
func (b *Bot) allowedFileURL(u *url.URL) bool {
	if u.Scheme == "https" && attachmentHosts[u.Hostname()] && (u.Port() == "" || u.Port() == "443") {
		return true
	}
	base, err := url.Parse(b.opts.APIBase)
	return err == nil && u.Scheme == base.Scheme && u.Host == base.Host
}

// download fetches one attachment, refusing other hosts (redirects
// included), answers that are not images, and anything over
// vision.MaxBytes, which is cut off while reading. The bot's token is
// never sent.
func (b *Bot) download(ctx context.Context, rawURL string) ([]byte, error) {
	return b.fetchFile(ctx, rawURL, vision.MaxBytes, func(mt string) bool { return vision.IsImage(mt, "") })
}

// fetchFile fetches one attachment from Discord's hosts (redirects
// included), refusing an answer served as a type accept does not take
// (application/octet-stream always passes) and anything over max bytes,
// which is cut off while reading. The bot's token is never sent.
func (b *Bot) fetchFile(ctx context.Context, rawURL string, max int64, accept func(mediaType string) bool) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil || !b.allowedFileURL(u) {
		return nil, fmt.Errorf("download %q: %w", rawURL, vision.ErrNotAllowed)
	}
	client := *b.opts.HTTPClient
	client.Timeout = attachmentTimeout
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 3 {
			return errors.New("too many redirects")
		}
		if !b.allowedFileURL(r.URL) {
			return fmt.Errorf("redirect to %s: %w", r.URL.Host, vision.ErrNotAllowed)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, attachmentTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", u.Redacted(), err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", u.Path, err)
	}
	defer resp.Body.Close()
	switch mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); {
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("download %s: %s", u.Path, resp.Status)
	case resp.ContentLength > max:
		return nil, fmt.Errorf("download %s: %w: %d bytes", u.Path, vision.ErrTooLarge, resp.ContentLength)
	case mt != "" && mt != "application/octet-stream" && !accept(mt):
		return nil, fmt.Errorf("download %s: %w: served as %s", u.Path, vision.ErrFormat, mt)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", u.Path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("download %s: %w: over %d bytes", u.Path, vision.ErrTooLarge, max)
	}
	return data, nil
}
