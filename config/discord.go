package config

// DiscordConfig is how the bot behaves in Discord beyond connecting.
type DiscordConfig struct {
	// Reactions shows a turn's state on the user's message
	// (DISCORD_REACTIONS, default true): ⏳ while it waits in the channel's
	// queue, removed when answered, ⚠️ when it failed. It needs Add
	// Reactions; without it nothing shows and nothing else changes.
	Reactions bool
}

func (p *parser) discord() DiscordConfig {
	return DiscordConfig{Reactions: p.boolean("DISCORD_REACTIONS", true)}
}
