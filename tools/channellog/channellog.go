// Package channellog holds search_channel_log, the tool that finds what
// members said in the logged channels (/channel log on) of the
// conversation's own server, each hit with its time, author, jump link and
// line.
package channellog

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/page"
)

// Name is the tool's name.
const Name = "search_channel_log"

// pageSize is how many hits one result holds; lineRunes how much of a
// message's text a hit shows.
const (
	pageSize  = 20
	lineRunes = 300
)

// Deps are what the tool reads with.
type Deps struct {
	DB       db.Querier
	Signer   *page.Signer   // signs the continuation tokens of later pages
	Location *time.Location // the times shown and read; default time.Local
}

type args struct {
	Query        string `json:"query,omitempty" jsonschema_description:"words the messages hold, space-separated, all of them found, any case. A Japanese word of two characters or more is found anywhere in a message (集合 finds 集合場所; a single character such as 雨 only where it stands alone, so write 雨が or 大雨 rather than 雨); an English word or a number at the start of a word (dock finds docker, not ocker). Leave out to list the newest messages"`
	Channel      string `json:"channel,omitempty" jsonschema_description:"only this channel or thread: its id, <#id>, or a link into it; a channel's threads are included. Leave out for every logged channel of this server"`
	Author       string `json:"author,omitempty" jsonschema_description:"only messages by this member: their id, <@id>, or their name as shown in the server: a whole word of an English name (taro finds Taro Yamada, tar does not) or two characters or more of a Japanese name (田中 finds 田中花子)"`
	Since        string `json:"since,omitempty" jsonschema_description:"only messages from this time on: 2006-01-02 or 2006-01-02 15:04 (local time) or RFC 3339"`
	Until        string `json:"until,omitempty" jsonschema_description:"only messages before this time, in the same forms as since"`
	ContinueFrom string `json:"continue_from,omitempty" jsonschema_description:"next_token from the page-info footer of the previous call, for its next page; the other arguments are then ignored"`
}

// pageState is the continuation state of a search.
type pageState struct {
	Space   string `json:"s"`
	Query   string `json:"q,omitempty"`
	Channel string `json:"c,omitempty"`
	Author  string `json:"a,omitempty"`
	Since   int64  `json:"f,omitempty"` // Unix seconds
	Until   int64  `json:"u,omitempty"`
	Offset  int    `json:"o"`
}

var (
	channelRef = regexp.MustCompile(`^<#(\d+)>$|^(\d+)$|^https://(?:\w+\.)?discord(?:app)?\.com/channels/\d+/(\d+)`)
	userRef    = regexp.MustCompile(`^<@!?(\d+)>$`)
)

// Tool returns search_channel_log. It reaches only the logs of the
// caller's server (tools.Caller.Space); elsewhere it says there is none.
func Tool(d Deps) tools.Tool {
	if d.Location == nil {
		d.Location = time.Local
	}
	return tools.MustNew(Name,
		"Search what members said in this server's logged channels (channels where /channel log is on, from when it was turned on). "+
			"Hits come newest first, 20 a page, each with its time, author, a link to the message and its text. "+
			"Use it for questions about past talk (「先週のBBQの集合場所ってどこって言ってた？」) and answer with the link.",
		func(ctx context.Context, a args) (string, error) {
			c, _ := tools.CallerFrom(ctx)
			if !strings.HasPrefix(c.Space, "guild:") {
				return "", fmt.Errorf("no channel log here: only a server's channels are logged, and this conversation is not in a server")
			}
			st, err := d.state(ctx, c.Space, a)
			if err != nil {
				return "", err
			}
			return d.search(ctx, st)
		})
}

// state is the search a asks for in space, or the one its token continues.
func (d Deps) state(ctx context.Context, space string, a args) (pageState, error) {
	st := pageState{Space: space}
	if tok := strings.TrimSpace(a.ContinueFrom); tok != "" {
		if d.Signer == nil {
			return st, fmt.Errorf("invalid continuation token: this search has no later pages")
		}
		if err := d.Signer.Verify(Name, tok, &st); err != nil {
			return st, err
		}
		if st.Space != space {
			return st, fmt.Errorf("invalid continuation token: token belongs to another server")
		}
		return st, nil
	}
	st.Query = strings.TrimSpace(a.Query)
	if ch := strings.TrimSpace(a.Channel); ch != "" {
		m := channelRef.FindStringSubmatch(ch)
		if m == nil {
			return st, fmt.Errorf("channel %q is not a channel id: give its id (digits), <#id> or a link to a message in it", ch)
		}
		st.Channel = m[1] + m[2] + m[3]
		ok, err := db.ChannelLogged(ctx, d.DB, space, st.Channel)
		if err != nil {
			return st, err
		}
		if !ok {
			return st, fmt.Errorf("channel %s has no log in this server: only channels where /channel log is on (and that have messages) can be searched; leave channel out to search them all", st.Channel)
		}
	}
	st.Author = strings.TrimSpace(a.Author)
	if m := userRef.FindStringSubmatch(st.Author); m != nil {
		st.Author = m[1]
	}
	for _, t := range []struct {
		name, v string
		dst     *int64
	}{{"since", a.Since, &st.Since}, {"until", a.Until, &st.Until}} {
		if strings.TrimSpace(t.v) == "" {
			continue
		}
		at, err := d.parseTime(t.v)
		if err != nil {
			return st, fmt.Errorf("%s %q: %w", t.name, t.v, err)
		}
		*t.dst = at.Unix()
	}
	return st, nil
}

// parseTime reads a time the model wrote: a date, a date and time (both in
// d.Location) or RFC 3339.
func (d Deps) parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02", "2006/01/02"} {
		if t, err := time.ParseInLocation(layout, s, d.Location); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a time: write 2006-01-02, 2006-01-02 15:04 or RFC 3339")
}

// search runs st and writes its page of hits, with a token for the next.
func (d Deps) search(ctx context.Context, st pageState) (string, error) {
	q := db.ChannelLogQuery{Space: st.Space, Query: st.Query, ChannelID: st.Channel, Author: st.Author,
		Limit: pageSize + 1, Offset: st.Offset}
	if st.Since != 0 {
		q.Since = time.Unix(st.Since, 0)
	}
	if st.Until != 0 {
		q.Until = time.Unix(st.Until, 0)
	}
	hits, err := db.SearchChannelLog(ctx, d.DB, q)
	if err != nil {
		return "", err
	}
	if len(hits) == 0 {
		if st.Offset > 0 {
			return "No more logged messages match.", nil
		}
		return "No logged message matches. Only channels where /channel log is on are kept, from when it was turned on.", nil
	}
	more := len(hits) > pageSize
	hits = hits[:min(len(hits), pageSize)]
	var b strings.Builder
	fmt.Fprintf(&b, "Logged messages, newest first (%d–%d):\n", st.Offset+1, st.Offset+len(hits))
	for _, h := range hits {
		line := strings.Join(strings.Fields(h.Content), " ")
		if r := []rune(line); len(r) > lineRunes {
			line = string(r[:lineRunes]) + "…"
		}
		if len(h.Attachments) > 0 {
			line = strings.TrimSpace(line + " [attached: " + strings.Join(h.Attachments, ", ") + "]")
		}
		who := h.AuthorName
		if who == "" {
			who = h.AuthorID
		}
		switch h.AuthorKind {
		case db.AuthorBot:
			who += " (bot)"
		case db.AuthorWebhook:
			who += " (webhook)"
		case db.AuthorSelf:
			who += " (yorozu)"
		}
		fmt.Fprintf(&b, "- %s %s %s\n  %s\n", h.CreatedAt.In(d.Location).Format("2006-01-02 15:04"), who, h.JumpLink(), line)
	}
	text := strings.TrimRight(b.String(), "\n")
	if !more || d.Signer == nil {
		return text, nil
	}
	next := st
	next.Offset += pageSize
	tok, err := d.Signer.Sign(Name, next)
	if err != nil {
		return "", fmt.Errorf("search channel log: sign the next page: %w", err)
	}
	return page.WithFooter(text, true, tok), nil
}
