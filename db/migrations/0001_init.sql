-- Conversations: one session per Discord channel/DM/thread or web chat.
CREATE TABLE sessions (
    id          bigserial   PRIMARY KEY,
    key         text        NOT NULL UNIQUE,
    source      text        NOT NULL DEFAULT '',
    guild_id    text        NOT NULL DEFAULT '',
    channel_id  text        NOT NULL DEFAULT '',
    title       text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Summarised turns are archived (archived_at, memory_id), never deleted.
-- memory_id gets its foreign key when the memories table arrives.
CREATE TABLE messages (
    id                  bigserial   PRIMARY KEY,
    session_id          bigint      NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    role                text        NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    author_id           text        NOT NULL DEFAULT '',
    author_name         text        NOT NULL DEFAULT '',
    content             text        NOT NULL,
    platform_message_id text        NOT NULL DEFAULT '',
    reply_to_id         bigint      REFERENCES messages (id) ON DELETE SET NULL,
    model               text        NOT NULL DEFAULT '',
    created_at          timestamptz NOT NULL DEFAULT now(),
    archived_at         timestamptz,
    memory_id           bigint,
    tokens              integer
);

-- "Latest N unarchived messages of a session": an index scan that stops after N rows.
CREATE INDEX messages_session_recent_idx
    ON messages (session_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL;

CREATE INDEX messages_reply_to_id_idx ON messages (reply_to_id) WHERE reply_to_id IS NOT NULL;

-- One row per LLM call.
CREATE TABLE api_logs (
    id                bigserial   PRIMARY KEY,
    model             text        NOT NULL DEFAULT '',
    request           jsonb,
    response          text        NOT NULL DEFAULT '',
    error             text        NOT NULL DEFAULT '',
    latency_ms        bigint      NOT NULL DEFAULT 0,
    prompt_tokens     integer     NOT NULL DEFAULT 0,
    completion_tokens integer     NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX api_logs_created_at_idx ON api_logs (created_at DESC);
