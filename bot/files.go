package bot

import (
	"bytes"
	"context"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/llm"
)

// maxFilesPerMessage is Discord's limit of attachments on one message.
const maxFilesPerMessage = 10

// sendFiles posts the turn's files (a chart) as one more reply after the
// answer's text. The nonce is derived from the user's message, so a retry
// after an unknown outcome does not post the files twice. A failure is
// logged: the answer itself is already out.
func (r *reply) sendFiles(ctx context.Context, userMessageID string) {
	files := r.takeFiles()
	msg := outgoing{AllowedMentions: noMentions(), Reference: r.ref}
	if userMessageID != "" {
		msg.Nonce = "f" + userMessageID
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer cancel()
	if _, err := createMessage(ctx, r.b.session, r.channelID, msg, uploads(files)...); err != nil {
		r.b.log.Warn("discord files not sent", "channel_id", r.channelID, "files", len(files), "err", err)
	}
}

// takeFiles hands the files that came so far to the answer's last message
// (at most maxFilesPerMessage).
func (r *reply) takeFiles() []llm.File {
	r.mu.Lock()
	defer r.mu.Unlock()
	files := r.files[r.filesOut:]
	if len(files) > maxFilesPerMessage {
		files = files[:maxFilesPerMessage]
	}
	r.filesOut += len(files)
	return files
}

// untakeFiles gives back n files taken for a message that was not sent.
func (r *reply) untakeFiles(n int) {
	r.mu.Lock()
	r.filesOut -= n
	r.mu.Unlock()
}

// filesLeft reports whether files came that the answer did not carry.
func (r *reply) filesLeft() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.files) > r.filesOut
}

// uploads are files as discordgo sends them.
func uploads(files []llm.File) []*discordgo.File {
	out := make([]*discordgo.File, len(files))
	for i, f := range files {
		out[i] = &discordgo.File{Name: f.Name, ContentType: f.ContentType, Reader: bytes.NewReader(f.Data)}
	}
	return out
}

// sendOffers posts each offer of the turn (a fact to keep, a poll, an
// event) as one more reply, its preview with an accept and a decline
// button; the nonce is the offer's, so a retry posts it once. A failure is
// logged: nothing was done, and the answer is out.
func (r *reply) sendOffers(ctx context.Context) {
	for _, o := range r.offers {
		msg := outgoing{
			Content: o.Preview, AllowedMentions: noMentions(), Reference: r.ref,
			Nonce:      "o" + strconv.FormatInt(o.ID, 10),
			Components: offerComponents(o),
		}
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
		_, err := createMessage(pctx, r.b.session, r.channelID, msg)
		cancel()
		if err != nil {
			r.b.log.Warn("discord offer not sent", "channel_id", r.channelID, "offer_id", o.ID, "kind", o.Kind, "err", err)
		}
	}
}

// offerComponents are an offer's two buttons.
func offerComponents(o llm.Offer) []discordgo.MessageComponent {
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: o.Accept, Style: discordgo.SuccessButton, CustomID: commands.OfferButtonID(o.ID, true)},
		discordgo.Button{Label: o.Decline, Style: discordgo.SecondaryButton, CustomID: commands.OfferButtonID(o.ID, false)},
	}}}
}
