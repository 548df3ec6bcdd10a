package chat

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

const (
	// channelsRetry is how soon settings that could not be read are tried
	// again; meanwhile the last ones read stay in force.
	channelsRetry = time.Second
	// channelsTimeout bounds one read of them outside a turn.
	channelsTimeout = 5 * time.Second
)

// errChannelsUnread is what a turn gets while the settings were never
// read: the first read failed a moment ago.
var errChannelsUnread = errors.New("the channels' settings could not be read yet")

// channelCache keeps every Discord place's settings (channel_settings: a
// row per server, channel or thread someone set something for) in memory,
// so that a turn asks no query for its persona and model. Only the first
// turn waits for them to be read; once they are refresh old, a turn has
// them read again in the background and uses those it has. reload, which
// whoever stored a change calls, reads them at once: a change made by this
// process applies to the next turn, one made by another within refresh.
type channelCache struct {
	q       db.Querier
	refresh time.Duration

	mu        sync.Mutex
	byGuild   map[string][]db.ChannelSetting // nil until first read
	readAt    time.Time                      // when the read of byGuild began
	due       time.Time                      // when to read again
	reloading bool                           // a background read is under way
}

// inForce is what is in force in channelID of guildID (see
// db.ChannelSettingsInForce); err is set only while no settings were ever
// read.
func (c *channelCache) inForce(ctx context.Context, guildID, channelID, parentID string) (db.EffectiveSettings, error) {
	c.mu.Lock()
	if c.byGuild == nil {
		// Every turn needs them: this one reads them, the others wait.
		defer c.mu.Unlock()
		if time.Now().Before(c.due) {
			return db.EffectiveSettings{}, errChannelsUnread
		}
		if err := c.storeLocked(c.read(ctx)); err != nil {
			return db.EffectiveSettings{}, err
		}
		return db.Resolve(c.byGuild[guildID], guildID, channelID, parentID), nil
	}
	if !time.Now().Before(c.due) && !c.reloading {
		c.reloading = true
		go c.reloadInBackground()
	}
	rows := c.byGuild[guildID]
	c.mu.Unlock()
	return db.Resolve(rows, guildID, channelID, parentID), nil
}

func (c *channelCache) reloadInBackground() {
	ctx, cancel := context.WithTimeout(context.Background(), channelsTimeout)
	defer cancel()
	byGuild, began, err := c.read(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reloading = false
	_ = c.storeLocked(byGuild, began, err) // on failure those known stay, read again soon
}

// reload reads the settings now.
func (c *channelCache) reload(ctx context.Context) error {
	byGuild, began, err := c.read(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.storeLocked(byGuild, began, err)
}

// read reads every place's settings, by server; began is when it began.
func (c *channelCache) read(ctx context.Context) (byGuild map[string][]db.ChannelSetting, began time.Time, err error) {
	began = time.Now()
	rows, err := db.AllChannelSettings(ctx, c.q)
	if err != nil {
		return nil, began, err
	}
	byGuild = make(map[string][]db.ChannelSetting)
	for _, r := range rows {
		byGuild[r.GuildID] = append(byGuild[r.GuildID], r)
	}
	return byGuild, began, nil
}

// storeLocked keeps what read returned, unless a read begun later was
// kept already; on failure those known stay and are read again
// channelsRetry later. c.mu is held.
func (c *channelCache) storeLocked(byGuild map[string][]db.ChannelSetting, began time.Time, err error) error {
	if err != nil {
		c.due = time.Now().Add(channelsRetry)
		return err
	}
	if began.Before(c.readAt) {
		return nil
	}
	c.byGuild, c.readAt, c.due = byGuild, began, began.Add(c.refresh)
	return nil
}
