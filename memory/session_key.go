package memory

// SessionKey names a conversation. Build it with DiscordChannel, DiscordDM or
// Web so the same conversation always gets the same key.
type SessionKey string

// DiscordChannel is the key of a guild channel's conversation. Threads are
// channels in Discord, so a thread id gives the thread its own conversation.
func DiscordChannel(channelID string) SessionKey {
	return SessionKey("discord:channel:" + channelID)
}

// DiscordDM is the key of a direct-message conversation, by its channel id.
func DiscordDM(channelID string) SessionKey {
	return SessionKey("discord:dm:" + channelID)
}

// Web is the key of a conversation on the admin web page, e.g. Web("admin").
func Web(name string) SessionKey {
	return SessionKey("web:" + name)
}

// String returns the key as stored in sessions.key.
func (k SessionKey) String() string { return string(k) }
