-- The channel log's search terms also name the message's channel (and a
-- thread's parent) and its author, so that a search narrowed to a channel
-- or a member intersects their terms in the index, as the space's already
-- are (0030_channel_log.sql). Narrowed after the index instead, a word
-- common in the server was looked up row by row, and a channel or member
-- with no such message cost seconds at ten million rows (measured in
-- docs/channel-log-scale.md). The marks cannot be mistaken for a word's
-- term: yorozu_search_terms never keeps ASCII punctuation.
--   @<space>       the space (guild:<id>)
--   #<channel id>  the channel; a thread's rows carry their parent's too
--   ~<author id>   the author
--   ~<term>        each term of the author's name as it was logged
CREATE FUNCTION yorozu_log_terms(content text, space text, channel_id text, parent_id text, author_id text, author_name text)
RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
SELECT yorozu_search_terms(content)
    || ARRAY['@' || space, '#' || channel_id, '~' || author_id]
    || CASE WHEN parent_id <> '' THEN ARRAY['#' || parent_id] ELSE '{}'::text[] END
    || ARRAY(SELECT '~' || t FROM unnest(yorozu_search_terms(author_name)) AS t)
$$;

ALTER TABLE channel_messages DROP COLUMN terms;
ALTER TABLE channel_messages ADD COLUMN terms tsvector GENERATED ALWAYS AS
    (array_to_tsvector(yorozu_log_terms(content, space, channel_id, parent_id, author_id, author_name))) STORED;
CREATE INDEX channel_messages_terms_idx ON channel_messages USING gin (terms);
