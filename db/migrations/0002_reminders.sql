-- Reminders users asked for. A row is pending while notified_at, cancelled_at
-- and failed_at are all NULL; delivery is a River job (job_id) scheduled at due_at.
CREATE TABLE reminders (
    id                bigserial   PRIMARY KEY,
    session_key       text        NOT NULL DEFAULT '',
    guild_id          text        NOT NULL DEFAULT '',
    channel_id        text        NOT NULL,
    user_id           text        NOT NULL,
    content           text        NOT NULL,
    due_at            timestamptz NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    notified_at       timestamptz,
    cancelled_at      timestamptz,
    failed_at         timestamptz,
    message_id        text        NOT NULL DEFAULT '', -- the delivered Discord message
    source_message_id text        NOT NULL DEFAULT '', -- the message that asked for it
    job_id            bigint,                          -- river_job.id
    attempts          integer     NOT NULL DEFAULT 0,  -- delivery attempts made
    last_error        text        NOT NULL DEFAULT ''
);

-- Pending reminders by due time (overdue checks, admin views).
CREATE INDEX reminders_pending_due_idx ON reminders (due_at)
    WHERE notified_at IS NULL AND cancelled_at IS NULL AND failed_at IS NULL;

-- A user's pending reminders (list, per-user cap).
CREATE INDEX reminders_pending_user_idx ON reminders (user_id, channel_id, due_at)
    WHERE notified_at IS NULL AND cancelled_at IS NULL AND failed_at IS NULL;
