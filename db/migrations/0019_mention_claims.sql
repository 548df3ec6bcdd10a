-- Each Discord mention is answered by one process, once: the process that
-- starts a turn claims its message first. A claim is kept for a day, long
-- enough for every catch-up after an outage or a hand-over to see it.
CREATE TABLE mention_claims (
    message_id text        PRIMARY KEY,
    owner      text        NOT NULL,   -- the claiming process (random per start)
    claimed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mention_claims_claimed_at_idx ON mention_claims (claimed_at);

-- When the holder of a bot token's gateway was last known to hold it (it
-- writes this every few seconds). The next holder answers the mentions sent
-- since then, which no gateway received.
CREATE TABLE gateway_heartbeats (
    lock_key bigint      PRIMARY KEY,
    seen_at  timestamptz NOT NULL
);
