-- Logins to the admin page. The cookie carries a random token; only its
-- SHA-256 is stored, so a copy of the table opens no session. A session ends
-- after 30 days without a request (last_seen_at) or at logout.
CREATE TABLE admin_sessions (
    token_hash   bytea       PRIMARY KEY,
    csrf_token   text        NOT NULL,
    address      text        NOT NULL DEFAULT '',
    user_agent   text        NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX admin_sessions_last_seen_idx ON admin_sessions (last_seen_at);

-- The choices of the model selector: a label and the Ollama model it means.
CREATE TABLE model_presets (
    id         bigserial   PRIMARY KEY,
    label      text        NOT NULL UNIQUE CHECK (label <> ''),
    model      text        NOT NULL CHECK (model <> ''),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- A web chat remembers the model it was started with.
ALTER TABLE sessions ADD COLUMN model text NOT NULL DEFAULT '';

-- The admin page lists conversations newest first.
CREATE INDEX sessions_updated_idx ON sessions (updated_at DESC, id DESC);

-- Which conversation a model call served (empty for housekeeping), so the
-- logs page can say it.
ALTER TABLE api_logs ADD COLUMN session_key text NOT NULL DEFAULT '';
