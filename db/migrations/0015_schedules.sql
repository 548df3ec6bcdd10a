-- Repeating reminders and scheduled posts. A reminder with an rrule repeats:
-- due_at is its next occurrence, and it stays pending until its rule ends
-- (notified_at set then), it is cancelled, or it fails for good. A paused
-- one is pending but not delivered; it counts toward its user's limit.
ALTER TABLE reminders
    ADD COLUMN kind          text        NOT NULL DEFAULT 'remind'
                                         CHECK (kind IN ('remind', 'post')),
    ADD COLUMN rrule         text        NOT NULL DEFAULT '',  -- RFC 5545 DTSTART + RRULE; '' for one-shot
    ADD COLUMN time_zone     text        NOT NULL DEFAULT '',  -- IANA zone the times were read in
    ADD COLUMN skip_holidays boolean     NOT NULL DEFAULT false,
    ADD COLUMN paused_at     timestamptz,
    ADD COLUMN occurrences   integer     NOT NULL DEFAULT 0;   -- occurrences gone by (delivered or missed)

-- A server's live scheduled posts (the per-server limit).
CREATE INDEX reminders_live_posts_idx ON reminders (guild_id)
    WHERE kind = 'post' AND notified_at IS NULL AND cancelled_at IS NULL AND failed_at IS NULL;

-- Each occurrence handled: delivered (message_id set), or not posted (error
-- says why). A catch-up after downtime is one delivery that covers every
-- occurrence missed. The key keeps an occurrence from being handled twice.
CREATE TABLE reminder_deliveries (
    reminder_id  bigint      NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    occurrence   timestamptz NOT NULL,
    handled_at   timestamptz NOT NULL,
    message_id   text        NOT NULL DEFAULT '',
    covers       integer     NOT NULL DEFAULT 1,   -- occurrences this delivery stands for
    error        text        NOT NULL DEFAULT '',
    PRIMARY KEY (reminder_id, occurrence)
);
