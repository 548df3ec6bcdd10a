-- A disaster post's claim: when a poller set out to post the event's
-- message, written and committed before the POST and cleared when the
-- message's id is recorded. A claim left without a message id is a post
-- whose outcome is unknown (its answer was lost, or its process died before
-- the record): a later poll looks for the message instead of posting again
-- blindly (scheduler/disaster.go).
ALTER TABLE disaster_events ADD COLUMN post_started_at timestamptz;
