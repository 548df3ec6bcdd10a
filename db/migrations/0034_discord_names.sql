-- The names of Discord servers, channels, threads and users, as the gateway
-- last reported them, so the admin page shows 「ボドゲ部」 where it would
-- otherwise show a snowflake. A user's name is per server (guild_id; their
-- nickname there) or their own ('' : the account's display name, seen in
-- DMs). A channel's row carries its server; a thread's also its parent.
-- Rows are written only when a name changed (see db/discord_names.go).
CREATE TABLE discord_names (
    kind       text        NOT NULL CHECK (kind IN ('guild', 'channel', 'user')),
    id         text        NOT NULL,
    guild_id   text        NOT NULL DEFAULT '',
    parent_id  text        NOT NULL DEFAULT '',
    name       text        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (kind, id, guild_id)
);
