package bot

import (
	"bytes"
	"context"

	"github.com/bwmarrin/discordgo"
)

// maxFilesPerMessage is Discord's limit of attachments on one message.
const maxFilesPerMessage = 10

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
	msg := outgoing{AllowedMentions: noMentions(), Reference: r.ref}
	if userMessageID != "" {
		msg.Nonce = "f" + userMessageID
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer cancel()
	if _, err := createMessage(ctx, r.b.session, r.channelID, msg, uploads...); err != nil {
		r.b.log.Warn("discord files not sent", "channel_id", r.channelID, "files", len(files), "err", err)
	}
}
