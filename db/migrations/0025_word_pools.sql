-- Each space's word pool: the nouns its people used lately, oldest first,
-- saved every minute by a process that changed it and when it stops. A
-- process seeds a pool from this one row; without it, from the space's
-- latest user messages, whose text, read cold, took 23–39 ms at ten
-- million messages (and their tokenising after).
CREATE TABLE word_pools (
    space    text        PRIMARY KEY,
    words    text[]      NOT NULL,
    saved_at timestamptz NOT NULL DEFAULT now()
);
