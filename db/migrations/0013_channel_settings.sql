-- A Discord channel's (or thread's, or DM's) own persona and model, and a
-- server's defaults (channel_id = ''). NULL means "not set here": a thread
-- falls back to its parent channel, a channel to its server, a server to
-- yorozu's defaults.
CREATE TABLE channel_settings (
    guild_id   text        NOT NULL DEFAULT '',  -- '' for a DM
    channel_id text        NOT NULL DEFAULT '',  -- '' for the server's defaults
    parent_id  text        NOT NULL DEFAULT '',  -- a thread's parent channel
    persona    text        CHECK (char_length(persona) <= 2000),
    model      text        CHECK (model <> ''),
    updated_by text        NOT NULL DEFAULT '',  -- Discord user id, or "admin"
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (guild_id, channel_id),
    CHECK (guild_id <> '' OR channel_id <> '')
);

-- The message a user's message replied to (its platform id), so a reply
-- chain can be followed through the database.
ALTER TABLE messages ADD COLUMN reply_to_platform_id text NOT NULL DEFAULT '';

-- "The stored message with this Discord id": a reply's parts are kept
-- space-separated in one row, so the index is on the id list. Messages come
-- one at a time and lookups are rare: without fastupdate each insert goes
-- into the index at once, instead of into a pending list every lookup
-- would scan.
CREATE INDEX messages_platform_ids_idx ON messages USING gin (string_to_array(platform_message_id, ' '))
    WITH (fastupdate = off);
