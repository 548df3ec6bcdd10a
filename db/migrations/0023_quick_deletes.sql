-- Deleting a conversation marks it (deleted_at): from then on no list,
-- page, search, reply chain or context reads it. Its rows are removed
-- afterwards by the session_purge job, a thousand messages per statement,
-- then the session row with what is left. Deleting them all in the one
-- statement the user waited for took 50 ms at a thousand messages, several
-- hundred at ten thousand. Nullable with no default: adding the column
-- rewrites nothing.
ALTER TABLE sessions ADD COLUMN deleted_at timestamptz;

-- The sessions waiting for the purge, first deleted first.
CREATE INDEX sessions_deleted_idx ON sessions (deleted_at, id) WHERE deleted_at IS NOT NULL;

-- messages.memory_id names the summary that archived a message. Deleting
-- a session's summaries (/forget with summaries) used to null it in every
-- message they covered, tens of thousands of rows; without the foreign key
-- the number stays, harmless: summary ids are never reused (bigserial), and
-- DeleteMemory, which brings one summary's messages back, clears it itself.
-- messages_memory_id_idx stays for DeleteMemory.
ALTER TABLE messages DROP CONSTRAINT messages_memory_id_fkey;
