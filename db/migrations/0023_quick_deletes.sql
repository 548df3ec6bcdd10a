-- messages.memory_id names the summary that archived a message. Deleting
-- a session's summaries (/forget with summaries) used to null it in every
-- message they covered, tens of thousands of rows; without the foreign key
-- the number stays, harmless: summary ids are never reused (bigserial), and
-- DeleteMemory, which brings one summary's messages back, clears it itself.
-- messages_memory_id_idx stays for DeleteMemory.
ALTER TABLE messages DROP CONSTRAINT messages_memory_id_fkey;
