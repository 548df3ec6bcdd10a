package talk

import (
	"container/list"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Defaults of Options.
const (
	// DefaultChannels is how many channels are kept; the least recently
	// active is dropped first.
	DefaultChannels = 500
	// DefaultMessages is how many messages one channel keeps.
	DefaultMessages = 100
	// DefaultBytes is how many bytes of text one channel keeps: about
	// three times what a quarter of the default context budget shows
	// (1,500 tokens, some 4.5 KB of Japanese), so 500 channels hold at most
	// 8 MiB of text.
	DefaultBytes = 16 << 10
	// MaxChars cuts one message: a 4,000-character post would otherwise
	// take a channel's whole share of the context.
	MaxChars = 500
	// Window is how far back a turn is given the talk.
	Window = 2 * time.Hour
)

// cutMark ends a message cut at MaxChars.
const cutMark = "…(以下略)"

// Message is one member message of a channel.
type Message struct {
	ID     string
	Author string // display name; labelled by the adapter for bots and webhooks
	Text   string
	At     time.Time
}

// Options bound a Buffer; zero fields take the defaults.
type Options struct {
	Channels int // channels kept (DefaultChannels)
	Messages int // messages per channel (DefaultMessages)
	Bytes    int // text bytes per channel (DefaultBytes)
}

// Buffer is the recent talk of the most recently active channels. It is
// safe for concurrent use.
type Buffer struct {
	opts Options

	mu       sync.Mutex
	channels map[string]*list.Element // of *channel
	lru      list.List                // front: most recently active
}

type channel struct {
	id       string
	msgs     []Message // by time, oldest first
	bytes    int
	answered time.Time // yorozu's last answer here
	read     bool      // the platform's history was read (or tried)
}

// New returns an empty Buffer bounded by opts.
func New(opts Options) *Buffer {
	if opts.Channels <= 0 {
		opts.Channels = DefaultChannels
	}
	if opts.Messages <= 0 {
		opts.Messages = DefaultMessages
	}
	if opts.Bytes <= 0 {
		opts.Bytes = DefaultBytes
	}
	return &Buffer{opts: opts, channels: map[string]*list.Element{}}
}

// channelLocked returns channelID's entry, made and marked most recently
// active; the least recently active channel is dropped past the bound.
func (b *Buffer) channelLocked(channelID string) *channel {
	if e, ok := b.channels[channelID]; ok {
		b.lru.MoveToFront(e)
		return e.Value.(*channel)
	}
	c := &channel{id: channelID}
	b.channels[channelID] = b.lru.PushFront(c)
	for b.lru.Len() > b.opts.Channels {
		last := b.lru.Back()
		delete(b.channels, last.Value.(*channel).id)
		b.lru.Remove(last)
	}
	return c
}

// Add keeps m as said in channelID. A message already kept (by id) is
// replaced; one older than yorozu's last answer there is not kept.
func (b *Buffer) Add(channelID string, m Message) {
	m.Text = cut(m.Text)
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.channelLocked(channelID)
	c.add(m, b.opts)
}

func (c *channel) add(m Message, opts Options) {
	if !m.At.After(c.answered) {
		return
	}
	if i := c.index(m.ID); i >= 0 {
		c.bytes += len(m.Text) - len(c.msgs[i].Text)
		c.msgs[i] = m
		return
	}
	i := sort.Search(len(c.msgs), func(i int) bool { return c.msgs[i].At.After(m.At) })
	c.msgs = append(c.msgs, Message{})
	copy(c.msgs[i+1:], c.msgs[i:])
	c.msgs[i] = m
	c.bytes += len(m.Text)
	c.trim(opts)
}

// trim drops the oldest messages past the bounds.
func (c *channel) trim(opts Options) {
	drop := 0
	for drop < len(c.msgs) && (len(c.msgs)-drop > opts.Messages || c.bytes > opts.Bytes) {
		c.bytes -= len(c.msgs[drop].Text)
		drop++
	}
	c.dropOldest(drop)
}

// dropOldest forgets the n oldest messages in place: a full channel drops
// one per message added, and must not copy itself anew each time.
func (c *channel) dropOldest(n int) {
	if n == 0 {
		return
	}
	k := copy(c.msgs, c.msgs[n:])
	clear(c.msgs[k:])
	c.msgs = c.msgs[:k]
}

func (c *channel) index(id string) int {
	for i := len(c.msgs) - 1; i >= 0; i-- {
		if c.msgs[i].ID == id {
			return i
		}
	}
	return -1
}

// Edit gives the kept message id of channelID its new text; a message not
// kept stays unknown.
func (b *Buffer) Edit(channelID, id, text string) {
	text = cut(text)
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.channels[channelID]
	if !ok {
		return
	}
	c := e.Value.(*channel)
	if i := c.index(id); i >= 0 {
		c.bytes += len(text) - len(c.msgs[i].Text)
		c.msgs[i].Text = text
	}
}

// Delete forgets the messages ids of channelID.
func (b *Buffer) Delete(channelID string, ids ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.channels[channelID]
	if !ok {
		return
	}
	c := e.Value.(*channel)
	gone := make(map[string]bool, len(ids))
	for _, id := range ids {
		gone[id] = true
	}
	kept := c.msgs[:0]
	for _, m := range c.msgs {
		if gone[m.ID] {
			c.bytes -= len(m.Text)
			continue
		}
		kept = append(kept, m)
	}
	clear(c.msgs[len(kept):])
	c.msgs = kept
}

// Answered notes that yorozu answered in channelID at at: what was said
// before has been heard and is forgotten.
func (b *Buffer) Answered(channelID string, at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.channelLocked(channelID)
	if !at.After(c.answered) {
		return
	}
	c.answered = at
	n := sort.Search(len(c.msgs), func(i int) bool { return c.msgs[i].At.After(at) })
	for _, m := range c.msgs[:n] {
		c.bytes -= len(m.Text)
	}
	c.dropOldest(n)
}

// Since returns the talk of channelID after yorozu's last answer, at or
// after from and at or before until, oldest first, without the message
// skip (the one being answered).
func (b *Buffer) Since(channelID string, from, until time.Time, skip string) []Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.channels[channelID]
	if !ok {
		return nil
	}
	c := e.Value.(*channel)
	out := make([]Message, 0, len(c.msgs))
	for _, m := range c.msgs {
		if m.At.Before(from) || m.At.After(until) || m.ID == skip {
			continue
		}
		out = append(out, m)
	}
	return out
}

// NeedsHistory reports, once per channel kept, that channelID's history has
// not been read yet: the caller reads it and hands it to Fill. It is true
// again only after the channel was dropped from the buffer.
func (b *Buffer) NeedsHistory(channelID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.channelLocked(channelID)
	if c.read {
		return false
	}
	c.read = true
	return true
}

// Fill merges the history read from the platform into channelID: msgs are
// members' messages, answers the times yorozu answered there. Messages the
// gateway brought since (edited or not) win over the history's copies.
func (b *Buffer) Fill(channelID string, msgs []Message, answers []time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.channelLocked(channelID)
	for _, at := range answers {
		if at.After(c.answered) {
			c.answered = at
		}
	}
	kept := c.msgs[:0]
	for _, m := range c.msgs {
		if m.At.After(c.answered) {
			kept = append(kept, m)
		} else {
			c.bytes -= len(m.Text)
		}
	}
	c.msgs = kept
	for _, m := range msgs {
		if c.index(m.ID) < 0 {
			m.Text = cut(m.Text)
			c.add(m, b.opts)
		}
	}
}

// Len is how many channels are kept.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lru.Len()
}

// cut bounds one message's text at MaxChars.
func cut(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= MaxChars {
		return s
	}
	return string([]rune(s)[:MaxChars]) + cutMark
}
