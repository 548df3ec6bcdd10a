-- The slots of the model servers, shared by every yorozu process that uses
-- them: a call takes a free row of its server (one UPDATE), the process
-- renews its rows every few seconds, and gives the row back when the call
-- ends. A row whose expires_at passed is free again, so the slots of a
-- process that died are free within seconds. A free row has holder '' and
-- expires_at -infinity. server is the server's URL without secrets, so
-- processes that name a server differently still share its slots.
--
-- UNLOGGED: a lease is worth nothing after the database restarts (the
-- table comes back empty: every slot free, rows made again on first use),
-- and skipping the WAL keeps taking a slot, which is on every turn's path
-- to the model, free of a commit's flush.
CREATE UNLOGGED TABLE model_slot_leases (
    server     text        NOT NULL,
    slot       integer     NOT NULL CHECK (slot >= 0),
    holder     text        NOT NULL DEFAULT '',
    expires_at timestamptz NOT NULL DEFAULT '-infinity',
    PRIMARY KEY (server, slot)
);
