package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/bwmarrin/discordgo"
)

// maxFilesPerMessage is Discord's limit of attachments on one message.
const maxFilesPerMessage = 10

// fileMessage is a message with attachments as sent through discordgo's
// raw request: its MessageSend has no nonce fields.
type fileMessage struct {
	Content          string                            `json:"content,omitempty"`
	AllowedMentions  *discordgo.MessageAllowedMentions `json:"allowed_mentions"`
	MessageReference *discordgo.MessageReference       `json:"message_reference,omitempty"`
	Nonce            string                            `json:"nonce,omitempty"`
	EnforceNonce     bool                              `json:"enforce_nonce,omitempty"`
}

// sendFiles posts the turn's files (a chart) as one more reply after the
// answer's text. The nonce is derived from the user's message, so a retry
// after an unknown outcome does not post the files twice. A failure is
// logged: the answer itself is already out.
func (r *reply) sendFiles(ctx context.Context, userMessageID string) {
	files := r.files
	if len(files) > maxFilesPerMessage {
		files = files[:maxFilesPerMessage]
	}
	uploads := make([]*discordgo.File, len(files))
	for i, f := range files {
		uploads[i] = &discordgo.File{Name: f.Name, ContentType: f.ContentType, Reader: bytes.NewReader(f.Data)}
	}
	msg := fileMessage{AllowedMentions: noMentions(), MessageReference: r.ref}
	if userMessageID != "" {
		msg.Nonce, msg.EnforceNonce = "f"+userMessageID, true
	}
	if err := r.postFiles(ctx, msg, uploads); err != nil {
		r.b.log.Warn("discord files not sent", "channel_id", r.channelID, "files", len(files), "err", err)
	}
}

func (r *reply) postFiles(ctx context.Context, msg fileMessage, files []*discordgo.File) error {
	var last error
	for attempt := range 3 {
		for _, f := range files {
			if s, ok := f.Reader.(*bytes.Reader); ok {
				_, _ = s.Seek(0, io.SeekStart)
			}
		}
		contentType, body, err := discordgo.MultipartBodyWithJSON(msg, files)
		if err != nil {
			return fmt.Errorf("encode files for channel %s: %w", r.channelID, err)
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
		_, err = r.b.session.RequestRaw(http.MethodPost, discordgo.EndpointChannelMessages(r.channelID), contentType, body,
			discordgo.EndpointChannelMessages(r.channelID), 0, discordgo.WithContext(rctx))
		cancel()
		if err == nil {
			return nil
		}
		last = fmt.Errorf("send files in channel %s (attempt %d): %w", r.channelID, attempt+1, err)
		if !retryableSend(err) || msg.Nonce == "" {
			return last
		}
	}
	return last
}

// retryableSend reports whether a send's outcome is unknown or transient (a
// timeout, a 5xx, an unreadable answer), so that sending again with the same
// nonce is both safe and useful.
func retryableSend(err error) bool {
	var rest *discordgo.RESTError
	if errors.As(err, &rest) && rest.Response != nil {
		return rest.Response.StatusCode >= 500
	}
	return true
}
