-- What happened while an answer was written (the tools it called, with a
-- preview of their arguments and results, the sources it read, whether it
-- was stopped), kept with the answer so a reload, an export and the
-- read-only Discord view show it.
CREATE TABLE message_activity (
    message_id bigint PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    activity   jsonb  NOT NULL
);

-- Search across conversations (GET /api/search). Japanese is written
-- without spaces, so a word index cannot find 天気 in 明日の天気は: every
-- message is indexed by its terms instead — each run of letters and digits
-- in ASCII as one lower-cased word, every other run (kana, kanji, …) as the
-- overlapping two-character pairs it holds (a lone character as itself).
-- A query is the AND of its own terms; the candidates are then checked for
-- the query's words as substrings. Plain GIN on a tsvector: it needs no
-- extension, so it works on the embedded database as on any server
-- (pg_trgm cannot look up a two-character word, pg_bigm is rarely
-- installed).
CREATE FUNCTION yorozu_search_terms(body text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    run   text;
    chars text[];
    n     int;
    terms text[] := '{}';
BEGIN
    -- The first 100,000 characters: enough for any message people write.
    FOR run IN SELECT (regexp_matches(lower(left(body, 100000)), '[0-9a-z]+|[^\s!-/:-@\[-`{-~0-9a-z]+', 'g'))[1] LOOP
        IF run ~ '^[0-9a-z]+$' THEN
            terms := terms || left(run, 64);
        ELSE
            chars := regexp_split_to_array(run, '');
            n := cardinality(chars);
            IF n = 1 THEN
                terms := terms || run;
            ELSE
                FOR i IN 1 .. n - 1 LOOP
                    terms := terms || (chars[i] || chars[i + 1]);
                END LOOP;
            END IF;
        END IF;
    END LOOP;
    RETURN ARRAY(SELECT DISTINCT t FROM unnest(terms) AS t);
END
$$;

CREATE TABLE message_search (
    message_id bigint   PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    terms      tsvector NOT NULL
);
CREATE INDEX message_search_terms_idx ON message_search USING gin (terms);

CREATE FUNCTION yorozu_index_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO message_search (message_id, terms)
    VALUES (NEW.id, array_to_tsvector(yorozu_search_terms(NEW.content)))
    ON CONFLICT (message_id) DO UPDATE SET terms = EXCLUDED.terms;
    RETURN NULL;
END
$$;
CREATE TRIGGER messages_search_index AFTER INSERT OR UPDATE OF content ON messages
    FOR EACH ROW EXECUTE FUNCTION yorozu_index_message();

INSERT INTO message_search (message_id, terms)
SELECT id, array_to_tsvector(yorozu_search_terms(content)) FROM messages;

-- Other versions of a conversation from some point on: an answer
-- regenerated (再生成), or a user message edited and sent again. The version
-- shown lives in messages, where later turns read it; the others are kept
-- here whole (their messages as JSON), and switching swaps them. anchor_id
-- is the last message every version shares (0: they differ from the first
-- message on).
CREATE TABLE conversation_branches (
    session_id bigint      NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    anchor_id  bigint      NOT NULL,
    position   int         NOT NULL,  -- 1, 2, … in the order they were made
    kind       text        NOT NULL CHECK (kind IN ('regenerate', 'edit')),
    messages   jsonb,                 -- NULL for the version shown
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, anchor_id, position)
);
