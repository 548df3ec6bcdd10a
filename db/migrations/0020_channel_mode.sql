-- How yorozu listens in a Discord channel: 'mention' (answers mentions and
-- replies to its messages), 'free' (answers every message but those meant
-- for others), 'thread' (a mention opens a thread answered without
-- mentions). NULL: not set here; a thread follows its parent, a channel is
-- 'mention'.
ALTER TABLE channel_settings ADD COLUMN mode text CHECK (mode IN ('mention', 'free', 'thread'));
