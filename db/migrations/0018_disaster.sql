-- JMA's disaster information: one row per earthquake (kind 'quake', key
-- JMA's eid), tsunami (kind 'tsunami', key the eid) and weather warning
-- (kind 'warning', key "<office>/<code>/<first report time>"), with the
-- Discord message that shows it. A poller claims the row and holds it
-- locked while it posts or edits, so an event is posted once however many
-- processes poll; the text kept is what the model's disaster tool answers
-- from.
CREATE TABLE disaster_events (
    kind        text        NOT NULL,
    event_key   text        NOT NULL,
    report      text        NOT NULL DEFAULT '',  -- the JMA report the row (and its message) is at
    reported_at timestamptz,                      -- that report's time
    occurred_at timestamptz,                      -- the earthquake's time, the warning's first report
    title       text        NOT NULL DEFAULT '',  -- one line: 「石川県能登地方 最大震度5強」
    content     text        NOT NULL DEFAULT '',  -- the post's text as it is now
    severity    integer     NOT NULL DEFAULT 0,   -- quake: intensity rank; tsunami, warning: level
    active      boolean     NOT NULL DEFAULT true,-- false once cancelled (解除)
    message_id  text        NOT NULL DEFAULT '',  -- '' while not posted
    channel_id  text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (kind, event_key)
);
CREATE INDEX disaster_events_recent_idx ON disaster_events (kind, updated_at DESC);

-- How the last reads of each JMA list went (quake, tsunami, warning), so
-- every process (and the model's tool) can say when JMA is unreachable.
CREATE TABLE disaster_polls (
    source    text        PRIMARY KEY,
    ok_at     timestamptz,                    -- the last read that worked
    failed_at timestamptz,                    -- the last that did not
    error     text        NOT NULL DEFAULT '' -- what went wrong then
);
