-- The channel log (/channel log on): every message members write in a
-- channel whose log is on, kept apart from conversations. message_id is
-- Discord's snowflake, which carries its creation time, so the primary key
-- also orders the rows by time: retention deletes the oldest through it a
-- small batch at a time (measured against time partitions: see
-- db/channel_messages.go), and nothing else needs a time index. A
-- partitioned table could not keep message_id unique on its own, which
-- edits and deletions by id need. The jump link is derived
-- (https://discord.com/channels/G/C/M).
CREATE TABLE channel_messages (
    message_id  bigint      PRIMARY KEY,
    space       text        NOT NULL,             -- "guild:<id>"
    guild_id    text        NOT NULL,
    channel_id  text        NOT NULL,
    parent_id   text        NOT NULL DEFAULT '',  -- a thread's parent channel
    author_id   text        NOT NULL,
    author_name text        NOT NULL DEFAULT '',
    author_kind text        NOT NULL DEFAULT 'member' CHECK (author_kind IN ('member', 'bot', 'webhook', 'self')),
    created_at  timestamptz NOT NULL,
    content     text        NOT NULL DEFAULT '',
    reply_to_id bigint,
    attachments text[]      NOT NULL DEFAULT '{}',
    edited_at   timestamptz,
    -- The same Japanese-capable terms as message_search (0021_chat_app.sql),
    -- and the space as one more ("@guild:1"): a search within a server
    -- intersects the two in the index, so a word common in other servers
    -- costs no visit to their rows.
    terms       tsvector    GENERATED ALWAYS AS (array_to_tsvector(yorozu_search_terms(content) || ('@' || space))) STORED
);
CREATE INDEX channel_messages_terms_idx ON channel_messages USING gin (terms);
-- A channel's log (counts, deletion when the channel goes) and a thread's
-- under its parent.
CREATE INDEX channel_messages_channel_idx ON channel_messages (channel_id, message_id);
CREATE INDEX channel_messages_parent_idx ON channel_messages (parent_id, message_id) WHERE parent_id <> '';
-- /forget me: one member's rows in a space.
CREATE INDEX channel_messages_author_idx ON channel_messages (space, author_id, message_id);

-- Whether a channel (or a thread, or a server's channels) is logged; NULL
-- inherits from the parent channel, then the server; off when nothing sets
-- it.
ALTER TABLE channel_settings ADD COLUMN log boolean;
