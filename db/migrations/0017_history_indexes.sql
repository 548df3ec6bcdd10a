-- Years of history: every statement a turn runs, and the admin page's,
-- reads through an index however many messages are kept.

-- A session's messages, archived ones included, in order: its history and
-- pages on the admin page, the reply ids, retention, and what deleting a
-- session cascades to. role rides along so that the newest user messages of
-- a session (the word pool's seed) are read from the index alone.
CREATE INDEX messages_session_idx ON messages (session_id, created_at, id) INCLUDE (role);

-- A session's summaries, folded ones included: deleting them, or the session.
CREATE INDEX memories_session_idx ON memories (session_id);

-- Deleting a summary unlinks the summaries folded into it.
CREATE INDEX memories_folded_into_idx ON memories (folded_into) WHERE folded_into IS NOT NULL;

-- The newest live summaries of every session (the admin page's list).
CREATE INDEX memories_live_recent_idx ON memories (period_end DESC, id DESC) WHERE folded_into IS NULL;

-- The sessions of a space, most recently active first (the word pool's seed).
CREATE INDEX sessions_space_updated_idx ON sessions (space, updated_at DESC, id DESC);
DROP INDEX sessions_space_idx;
