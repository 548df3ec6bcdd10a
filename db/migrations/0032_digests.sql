-- Digests: a scheduled post whose every occurrence summarises what members
-- said in its channel since the previous occurrence (from the channel log
-- where it is on, else from Discord's history), with jump links. A quiet
-- period posts nothing; its occurrence is recorded as handled like any
-- other (reminder_deliveries, error saying why nothing was posted).
ALTER TABLE reminders DROP CONSTRAINT reminders_kind_check;
ALTER TABLE reminders ADD CONSTRAINT reminders_kind_check CHECK (kind IN ('remind', 'post', 'digest'));

-- A digest is one of its server's scheduled posts (the per-server limit).
DROP INDEX reminders_live_posts_idx;
CREATE INDEX reminders_live_posts_idx ON reminders (guild_id)
    WHERE kind IN ('post', 'digest') AND notified_at IS NULL AND cancelled_at IS NULL AND failed_at IS NULL;
