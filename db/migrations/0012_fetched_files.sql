-- Documents a web tool fetched for a conversation (a PDF, a CSV, a page),
-- kept so the model can reread them instead of fetching again. They belong
-- to their session (and so to its space) and go with it.
CREATE TABLE fetched_files (
    id          bigserial   PRIMARY KEY,
    session_id  bigint      NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    url         text        NOT NULL,
    title       text        NOT NULL DEFAULT '',
    media_type  text        NOT NULL DEFAULT '',   -- pdf, html, csv, text/plain, …
    size_bytes  bigint      NOT NULL DEFAULT 0,    -- of the document as fetched
    content     text        NOT NULL,              -- extracted text, at most 2 MB
    truncated   boolean     NOT NULL DEFAULT false,
    tool        text        NOT NULL DEFAULT '',   -- the tool that fetched it
    fetched_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (session_id, url)
);

-- "This conversation's documents, newest first".
CREATE INDEX fetched_files_session_idx ON fetched_files (session_id, fetched_at DESC, id DESC);
