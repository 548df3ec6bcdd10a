package bot

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
)

const (
	// postAttempts is how often a message whose creation has an unknown
	// outcome is tried, all with the same nonce.
	postAttempts = 4
	// postAttemptTimeout bounds one attempt; a hung answer counts as unknown.
	postAttemptTimeout = 15 * time.Second
)

// newNonce returns a fresh nonce for one message: 20 hex digits, within
// Discord's 25-character limit.
func newNonce() string {
	var b [10]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// outgoing is the create-message body. discordgo's MessageSend has no nonce
// fields, so the JSON goes through its request method.
type outgoing struct {
	Content         string                            `json:"content,omitempty"`
	AllowedMentions *discordgo.MessageAllowedMentions `json:"allowed_mentions,omitempty"`
	Reference       *discordgo.MessageReference       `json:"message_reference,omitempty"`
	Nonce           string                            `json:"nonce"`
	EnforceNonce    bool                              `json:"enforce_nonce"`
	Components      []discordgo.MessageComponent      `json:"components,omitempty"`
	Poll            *discordgo.Poll                   `json:"poll,omitempty"`
}

// createMessage posts m into channelID with its nonce enforced and returns
// the message's id. An attempt whose outcome is unknown (no answer in time,
// a 5xx, an answer without a message id) is made again with the same
// nonce: Discord then returns the message it already made instead of a
// second one. A refusal (4xx) is final. Files, when given, are uploaded
// with it (read once, sent with every attempt).
func createMessage(ctx context.Context, s *discordgo.Session, channelID string, m outgoing, files ...*discordgo.File) (string, error) {
	if m.Nonce == "" {
		m.Nonce = newNonce()
	}
	m.EnforceNonce = true
	uploads, err := readFiles(files)
	if err != nil {
		return "", fmt.Errorf("post message in channel %s: %w", channelID, err)
	}
	endpoint := discordgo.EndpointChannelMessages(channelID)
	for attempt := 1; ; attempt++ {
		var id string
		id, err = createOnce(ctx, s, endpoint, m, uploads)
		if err == nil {
			return id, nil
		}
		if refused(err) || ctx.Err() != nil || attempt >= postAttempts {
			break
		}
		t := time.NewTimer(time.Duration(attempt*attempt) * 250 * time.Millisecond)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return "", fmt.Errorf("post message in channel %s (nonce %s): %w", channelID, m.Nonce, err)
}

// upload is a file read into memory, so that every attempt can send it.
type upload struct {
	name, contentType string
	data              []byte
}

func readFiles(files []*discordgo.File) ([]upload, error) {
	out := make([]upload, 0, len(files))
	for _, f := range files {
		data, err := io.ReadAll(f.Reader)
		if err != nil {
			return nil, fmt.Errorf("read file %s: %w", f.Name, err)
		}
		out = append(out, upload{name: f.Name, contentType: f.ContentType, data: data})
	}
	return out, nil
}

func createOnce(ctx context.Context, s *discordgo.Session, endpoint string, m outgoing, uploads []upload) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, postAttemptTimeout)
	defer cancel()
	var raw []byte
	var err error
	if len(uploads) == 0 {
		raw, err = s.RequestWithBucketID(http.MethodPost, endpoint, m, endpoint, discordgo.WithContext(ctx))
	} else {
		files := make([]*discordgo.File, len(uploads))
		for i, u := range uploads {
			files[i] = &discordgo.File{Name: u.name, ContentType: u.contentType, Reader: bytes.NewReader(u.data)}
		}
		contentType, body, merr := discordgo.MultipartBodyWithJSON(m, files)
		if merr != nil {
			return "", fmt.Errorf("encode files: %w", merr)
		}
		raw, err = s.RequestRaw(http.MethodPost, endpoint, contentType, body, endpoint, 0, discordgo.WithContext(ctx))
	}
	if err != nil {
		return "", err
	}
	// Only the id is read: an answer whose other fields discordgo cannot
	// decode (role objects where it expects ids, from some
	// Discord-compatible servers) still says the message exists.
	var msg struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil || msg.ID == "" {
		return "", fmt.Errorf("unreadable answer (%d bytes): %w", len(raw), errors.Join(err, errNoMessage))
	}
	return msg.ID, nil
}

var errNoMessage = errors.New("no message in the answer")

// refused reports whether Discord answered a request with a 4xx other than
// 429: the request itself is wrong and a retry cannot help.
func refused(err error) bool {
	var rest *discordgo.RESTError
	if !errors.As(err, &rest) || rest.Response == nil {
		return false
	}
	st := rest.Response.StatusCode
	return st >= 400 && st < 500 && st != http.StatusTooManyRequests
}

// applied reports whether err came after Discord answered a write 2xx: the
// write happened and only its answer could not be decoded, as with some
// Discord-compatible servers that send role objects where discordgo expects
// ids. discordgo returns ErrJSONUnmarshal only for a successful request's
// body.
func applied(err error) bool {
	return errors.Is(err, discordgo.ErrJSONUnmarshal)
}

// PostMessage posts content (and files, if any) as the bot into channelID,
// pinging no one, with a nonce Discord enforces so that a retry after a lost
// answer shows the message once. It returns the message id. Scheduled posts
// use it.
func (b *Bot) PostMessage(ctx context.Context, channelID, content string, files ...*discordgo.File) (string, error) {
	return createMessage(ctx, b.session, channelID, outgoing{Content: content, AllowedMentions: noMentions()}, files...)
}
