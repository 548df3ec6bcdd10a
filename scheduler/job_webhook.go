package scheduler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Where the scheduled posts (weather, tips) and the disaster posts go: a
// Discord webhook, or a bot message.

// ChannelPoster posts a bot message that pings no one and returns its id;
// *bot.Bot satisfies it, sending a nonce Discord enforces so that a retry
// after a lost answer still shows the post once.
type ChannelPoster interface {
	PostMessage(ctx context.Context, channelID, content string, files ...*discordgo.File) (string, error)
}

// Destination is where a scheduled post goes: the webhook when WebhookURL
// is set, else a bot message to ChannelID. Scheduled posts never ping.
type Destination struct {
	WebhookURL string       // WEATHER_WEBHOOK_URL / TIPS_WEBHOOK_URL; secret
	ChannelID  string       // WEATHER_CHANNEL_ID / TIPS_CHANNEL_ID
	HTTPClient *http.Client // executes the webhook; default http.DefaultClient
	Discord    ChannelPoster
	Timeout    time.Duration // bounds one post; default 15 s
}

// Enabled reports whether the destination has somewhere to post.
func (d Destination) Enabled() bool {
	return d.WebhookURL != "" || (d.ChannelID != "" && d.Discord != nil)
}

// noPings allows no mention of anyone.
func noPings() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

// Post sends content.
func (d Destination) Post(ctx context.Context, content string) error {
	return d.PostFiles(ctx, content)
}

// PostFiles sends content with files attached (a chart).
func (d Destination) PostFiles(ctx context.Context, content string, files ...*discordgo.File) error {
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch {
	case d.WebhookURL != "":
		return d.execWebhook(ctx, content, files)
	case d.ChannelID != "" && d.Discord != nil:
		if _, err := d.Discord.PostMessage(ctx, d.ChannelID, content, files...); err != nil {
			return fmt.Errorf("post to channel %s: %w", d.ChannelID, err)
		}
		return nil
	}
	return errors.New("post: no webhook or channel configured")
}

func (d Destination) execWebhook(ctx context.Context, content string, files []*discordgo.File) error {
	params := &discordgo.WebhookParams{Content: content, AllowedMentions: noPings()}
	contentType, body := "application/json", []byte(nil)
	var err error
	if len(files) > 0 {
		contentType, body, err = discordgo.MultipartBodyWithJSON(params, files)
	} else {
		body, err = json.Marshal(params)
	}
	if err != nil {
		return fmt.Errorf("post to webhook: encode: %w", err)
	}
	_, _, err = webhook{url: d.WebhookURL, client: d.HTTPClient}.do(ctx, http.MethodPost, "", "wait=true", contentType, body)
	return err
}

// webhook executes a Discord webhook: the scheduled posts' and the
// disaster posts'. Its URL holds the webhook's token, so no error it
// returns quotes the URL.
type webhook struct {
	url    string
	client *http.Client // nil: http.DefaultClient
}

// maxWebhookAnswer bounds the answer read back (a message is a few kB).
const maxWebhookAnswer = 64 << 10

// do sends body (nil: none) as contentType with method to the webhook's URL
// with sub appended to its path ("/messages/<id>") and query added to its
// own ("wait=true"). It returns the answer's body and status (0 when none
// came); a status other than 2xx is an error that quotes the answer's start.
func (w webhook) do(ctx context.Context, method, sub, query, contentType string, body []byte) ([]byte, int, error) {
	u, q, _ := strings.Cut(w.url, "?")
	u = strings.TrimSuffix(u, "/") + sub
	if q != "" && query != "" {
		q += "&"
	}
	if q += query; q != "" {
		u += "?" + q
	}
	var rd io.Reader = http.NoBody
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, 0, fmt.Errorf("webhook %s: invalid webhook URL", method) // never quote the token
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	hc := w.client
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		var uerr interface{ Unwrap() error }
		if errors.As(err, &uerr) {
			err = uerr.Unwrap() // drop the *url.Error that quotes the token
		}
		return nil, 0, fmt.Errorf("webhook %s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxWebhookAnswer))
	if resp.StatusCode/100 != 2 {
		return nil, resp.StatusCode, fmt.Errorf("webhook %s: %s: %s", method, resp.Status, strings.TrimSpace(string(raw[:min(len(raw), 512)])))
	}
	return raw, resp.StatusCode, nil
}
