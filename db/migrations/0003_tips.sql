-- Useless tips that were posted; the latest ones are compared (normalised)
-- against a new tip so the bot does not repeat itself.
CREATE TABLE tips (
    id         bigserial   PRIMARY KEY,
    topic      text        NOT NULL DEFAULT '',
    content    text        NOT NULL,
    normalized text        NOT NULL,
    posted_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX tips_posted_at_idx ON tips (posted_at DESC, id DESC);

-- One row per slot of a scheduled post (weather, tips): claimed by the
-- process that posts it, marked posted after. A slot posts once across
-- processes, and a slot missed while the bot was down can be found later.
CREATE TABLE job_slots (
    job        text        NOT NULL,
    slot       timestamptz NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    posted_at  timestamptz,
    PRIMARY KEY (job, slot)
);
