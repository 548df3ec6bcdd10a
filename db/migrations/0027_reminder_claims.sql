-- A delivery claims its occurrence in a short transaction, commits, and
-- only then asks the model and Discord; it records the outcome in a second
-- short transaction. No row lock is held across those calls, so twenty
-- scheduled posts waiting for the model hold no connection idle in
-- transaction, and a pause or cancel is answered at once.
--
-- claim_token names the attempt that holds the current occurrence; it is
-- cleared when the occurrence's outcome is recorded. claimed_until is the
-- lease: a claim past it (a process that died, an attempt cut short) is
-- taken over, and since its attempt may have posted, the next one looks
-- for its message before posting again with the same nonce.
ALTER TABLE reminders
    ADD COLUMN claim_token   text        NOT NULL DEFAULT '',
    ADD COLUMN claimed_until timestamptz;
