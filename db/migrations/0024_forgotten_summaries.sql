-- Forgetting a conversation's summaries (/forget with summaries) marks its
-- live ones (forgotten_at): from then on nothing reads them, nor the older
-- summaries folded into them. Deleting every one of them at once, with
-- their tags, took 110–235 ms at ten million messages (500 summaries a
-- conversation); the purge job deletes them afterwards. Nullable with no
-- default: adding the column rewrites nothing.
ALTER TABLE memories ADD COLUMN forgotten_at timestamptz;

-- The summaries waiting for the purge, first forgotten first.
CREATE INDEX memories_forgotten_idx ON memories (forgotten_at, id) WHERE forgotten_at IS NOT NULL;
