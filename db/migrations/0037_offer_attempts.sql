-- Offers: a press that accepts claims the offer (decided_at) before the
-- Discord call it starts and marks it done (done_at) once that call
-- succeeded; a failed call reopens it. attempts counts the acceptances
-- tried: after the first, an earlier one may have reached Discord (its
-- answer lost), so the next looks for what it made before making it again.
-- A claim whose work never finished (a crash) may be taken over by a later
-- press once its lease is over. Offers past their lifetime are deleted by a
-- daily job (offers_created_idx).
ALTER TABLE offers
    ADD COLUMN attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN done_at  timestamptz;
UPDATE offers SET done_at = decided_at, attempts = CASE WHEN accepted THEN 1 ELSE 0 END
WHERE decided_at IS NOT NULL;
