package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db"
)

// EventOffer creates the server event of an accepted offer_event offer,
// when the presser may manage (or create) events; now is the clock the
// event's times are checked against again. A refusal for a permission
// yorozu lacks names it. The offer is claimed before this runs, so a
// second press does not create a second event; a press after one whose
// outcome was unknown (a 5xx, a timeout) finds the event that one made.
func (b *Bot) EventOffer(now func() time.Time) commands.OfferAction {
	return func(ctx context.Context, o db.Offer, p commands.Press) (string, error) {
		if p.Perms&commands.ManageEvents == 0 {
			return "", commands.Refusal("イベントを作成するには「イベントの管理」（または「イベントの作成」）権限が必要です。")
		}
		var e chat.EventOffer
		if err := json.Unmarshal(o.Payload, &e); err != nil {
			return "", fmt.Errorf("event offer %d: %w", o.ID, err)
		}
		if err := chat.CheckEvent(e, now()); err != nil {
			return "", commands.Refusal(err.Error())
		}
		ctx, cancel := context.WithTimeout(ctx, restTimeout)
		defer cancel()
		params := &discordgo.GuildScheduledEventParams{Name: e.Name, Description: e.Detail,
			ScheduledStartTime: &e.Start, ScheduledEndTime: &e.End,
			PrivacyLevel: discordgo.GuildScheduledEventPrivacyLevelGuildOnly}
		if e.ChannelID == "" {
			params.EntityType = discordgo.GuildScheduledEventEntityTypeExternal
			params.EntityMetadata = &discordgo.GuildScheduledEventEntityMetadata{Location: e.Place}
		} else {
			ch, err := b.session.Channel(e.ChannelID, discordgo.WithContext(ctx))
			switch {
			case err != nil && refused(err):
				return "", commands.Refusal(fmt.Sprintf("チャンネル <#%s> が見つからないか、よろずから見えません。", e.ChannelID))
			case err != nil:
				return "", fmt.Errorf("event offer %d: channel %s: %w", o.ID, e.ChannelID, err)
			case ch.GuildID != o.GuildID:
				return "", commands.Refusal(fmt.Sprintf("チャンネル <#%s> はこのサーバーのチャンネルではありません。", e.ChannelID))
			case ch.Type == discordgo.ChannelTypeGuildVoice:
				params.EntityType = discordgo.GuildScheduledEventEntityTypeVoice
			case ch.Type == discordgo.ChannelTypeGuildStageVoice:
				params.EntityType = discordgo.GuildScheduledEventEntityTypeStageInstance
			default:
				return "", commands.Refusal(fmt.Sprintf("<#%s> はボイスチャンネルでもステージチャンネルでもありません。", e.ChannelID))
			}
			params.ChannelID = e.ChannelID
		}
		if o.Attempts > 1 {
			// An earlier press may have made the event and lost the answer.
			if ev := b.madeEvent(ctx, o, e); ev != nil {
				return eventDone(o.GuildID, ev.ID), nil
			}
		}
		// No blind retry of a 502: Discord may have made the event; the
		// offer reopens and the next press looks for it first.
		ev, err := b.session.GuildScheduledEventCreate(o.GuildID, params, discordgo.WithContext(ctx), discordgo.WithRestRetries(0))
		switch {
		case err != nil && forbidden(err):
			return "", commands.Refusal("イベントを作成できませんでした。このサーバーでよろずに「イベントの作成」（または「イベントの管理」）権限がありません。サーバーの管理者に付与を頼んでください。")
		case err != nil:
			return "", fmt.Errorf("create event of offer %d in guild %s: %w", o.ID, o.GuildID, err)
		}
		return eventDone(o.GuildID, ev.ID), nil
	}
}

// eventDone is what an offer's message says under the preview once its
// event exists.
func eventDone(guildID, eventID string) string {
	return fmt.Sprintf("✅ イベントを作成しました：https://discord.com/events/%s/%s", guildID, eventID)
}

// madeEvent is the event an earlier press of offer o made, if one did: an
// event of the server created by yorozu with e's name and start. Nil when
// there is none, or the server's events cannot be read (logged; the event
// is then made again rather than not at all).
func (b *Bot) madeEvent(ctx context.Context, o db.Offer, e chat.EventOffer) *discordgo.GuildScheduledEvent {
	botID := b.UserID()
	events, err := b.session.GuildScheduledEvents(o.GuildID, false, discordgo.WithContext(ctx))
	if err != nil {
		b.log.WarnContext(ctx, "cannot look for the event of an earlier press; creating it", "offer_id", o.ID, "guild_id", o.GuildID, "err", err)
		return nil
	}
	for _, ev := range events {
		if ev != nil && ev.CreatorID == botID && ev.Name == e.Name && ev.ScheduledStartTime.Equal(e.Start) {
			return ev
		}
	}
	return nil
}
