-- Long-term memory: summaries of archived turns. A summary that was folded
-- into a newer one keeps its row (folded_into) and leaves the context.
CREATE TABLE memories (
    id               bigserial   PRIMARY KEY,
    session_id       bigint      NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    content          text        NOT NULL,
    tokens           integer     NOT NULL DEFAULT 0,   -- estimated prompt tokens of content
    message_count    integer     NOT NULL DEFAULT 0,   -- messages (and folded summaries' messages) covered
    period_start     timestamptz NOT NULL,
    period_end       timestamptz NOT NULL,
    folded_into      bigint      REFERENCES memories (id) ON DELETE SET NULL,
    embedding        real[],
    embedding_model  text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now()
);

-- "The session's live summaries, oldest first": what the context and folding read.
CREATE INDEX memories_session_live_idx ON memories (session_id, period_end, id) WHERE folded_into IS NULL;

ALTER TABLE messages
    ADD CONSTRAINT messages_memory_id_fkey FOREIGN KEY (memory_id) REFERENCES memories (id) ON DELETE SET NULL;
CREATE INDEX messages_memory_id_idx ON messages (memory_id) WHERE memory_id IS NOT NULL;

-- Three tags per message and per summary (model, or nouns when it is down).
CREATE TABLE message_tags (
    message_id bigint NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    tag        text   NOT NULL,
    PRIMARY KEY (message_id, tag)
);
CREATE INDEX message_tags_tag_idx ON message_tags (tag);

CREATE TABLE memory_tags (
    memory_id bigint NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    tag       text   NOT NULL,
    PRIMARY KEY (memory_id, tag)
);
CREATE INDEX memory_tags_tag_idx ON memory_tags (tag);

-- Knowledge the bot gathered from web searches, with the pages it came from.
CREATE TABLE knowledge_entries (
    id          bigserial   PRIMARY KEY,
    title       text        NOT NULL,
    body        text        NOT NULL,
    query       text        NOT NULL DEFAULT '',
    tool        text        NOT NULL DEFAULT '',
    session_key text        NOT NULL DEFAULT '',
    file_path   text        NOT NULL DEFAULT '',   -- relative to the knowledge base folder
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX knowledge_entries_created_idx ON knowledge_entries (created_at DESC, id DESC);

CREATE TABLE knowledge_sources (
    entry_id bigint  NOT NULL REFERENCES knowledge_entries (id) ON DELETE CASCADE,
    position integer NOT NULL,
    url      text    NOT NULL,
    title    text    NOT NULL DEFAULT '',
    PRIMARY KEY (entry_id, position)
);

-- The Markdown knowledge base index: one row per file, its embedding cached
-- by content hash and model.
CREATE TABLE local_knowledge_docs (
    id              bigserial   PRIMARY KEY,
    path            text        NOT NULL UNIQUE,   -- relative to the knowledge base folder, slash-separated
    title           text        NOT NULL DEFAULT '',
    content         text        NOT NULL,
    content_hash    text        NOT NULL,
    embedding       real[]      NOT NULL,
    embedding_model text        NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Shared notes. Pages are ordered by position; the pages of a section are
-- contiguous (kept by the writers, which serialise on an advisory lock).
CREATE TABLE note_pages (
    id         bigserial   PRIMARY KEY,
    title      text        NOT NULL UNIQUE CHECK (title <> ''),
    content    text        NOT NULL DEFAULT '',
    section    text        NOT NULL DEFAULT '',
    position   integer     NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT note_pages_position_key UNIQUE (position) DEFERRABLE INITIALLY DEFERRED
);

-- Pages a conversation linked: their full text joins that session's context.
CREATE TABLE session_note_pages (
    session_id bigint      NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    page_id    bigint      NOT NULL REFERENCES note_pages (id) ON DELETE CASCADE,
    linked_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, page_id)
);
