-- Whether a turn in a Discord channel is given the members' recent talk
-- there (kept in memory only, never stored). NULL: not set here; a thread
-- follows its parent, a channel the server, and the default is on.
ALTER TABLE channel_settings ADD COLUMN talk boolean;
