-- Every LLM call knows the turn it served (turn_id, also on every log line
-- of that turn) and what it was for (kind: reply, summary, tags, …).
ALTER TABLE api_logs
    ADD COLUMN turn_id text NOT NULL DEFAULT '',
    ADD COLUMN kind    text NOT NULL DEFAULT '';

CREATE INDEX api_logs_turn_id_idx ON api_logs (turn_id) WHERE turn_id <> '';
