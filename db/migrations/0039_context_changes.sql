-- What a turn's context reads (memory.Context) is cached by each process;
-- these triggers tell every process when it changes, on the channel
-- yorozu_context, whoever wrote it (a turn, the admin page, a summary, a
-- job, another process). The payload is JSON: "k" a session key, "s" a
-- space, "u" with "s" one member's facts in a space; "o" is the writer's
-- own tag (the setting yorozu.origin, set for the transaction by a process
-- that has already applied the change to its own cache, so it skips its own
-- notice). The triggers are per statement (sessions' per row), so a bulk
-- write notifies once per session or space; Postgres drops repeats within a
-- transaction.

CREATE FUNCTION yorozu_context_origin() RETURNS text LANGUAGE sql STABLE AS
$$ SELECT coalesce(current_setting('yorozu.origin', true), '') $$;

-- Tables whose rows belong to a session (session_id).
CREATE FUNCTION yorozu_context_session_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM pg_notify('yorozu_context', json_build_object('o', yorozu_context_origin(), 'k', s.key)::text)
        FROM (SELECT DISTINCT session_id FROM new_rows) c JOIN sessions s ON s.id = c.session_id;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM pg_notify('yorozu_context', json_build_object('o', yorozu_context_origin(), 'k', s.key)::text)
        FROM (SELECT DISTINCT session_id FROM old_rows) c JOIN sessions s ON s.id = c.session_id;
    END IF;
    RETURN NULL;
END $$;

-- Tables whose rows belong to a space.
CREATE FUNCTION yorozu_context_space_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM pg_notify('yorozu_context', json_build_object('o', yorozu_context_origin(), 's', c.space)::text)
        FROM (SELECT DISTINCT space FROM new_rows) c;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM pg_notify('yorozu_context', json_build_object('o', yorozu_context_origin(), 's', c.space)::text)
        FROM (SELECT DISTINCT space FROM old_rows) c;
    END IF;
    RETURN NULL;
END $$;

-- member_facts: one member's facts in one space.
CREATE FUNCTION yorozu_context_member_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM pg_notify('yorozu_context', json_build_object('o', yorozu_context_origin(), 's', c.space, 'u', c.user_id)::text)
        FROM (SELECT DISTINCT space, user_id FROM new_rows) c;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM pg_notify('yorozu_context', json_build_object('o', yorozu_context_origin(), 's', c.space, 'u', c.user_id)::text)
        FROM (SELECT DISTINCT space, user_id FROM old_rows) c;
    END IF;
    RETURN NULL;
END $$;

-- sessions: only what the context reads through them (the key, the space
-- the notes come from, deletion). Per row, with the test in WHEN: a turn's
-- upsert moving updated_at (or a title, a model) calls no function at all.
-- A new session holds nothing yet.
CREATE FUNCTION yorozu_context_session_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('yorozu_context', json_build_object('o', yorozu_context_origin(), 'k', OLD.key)::text);
    IF TG_OP = 'UPDATE' AND NEW.key <> OLD.key THEN
        PERFORM pg_notify('yorozu_context', json_build_object('o', yorozu_context_origin(), 'k', NEW.key)::text);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER sessions_context_update AFTER UPDATE ON sessions FOR EACH ROW
    WHEN ((OLD.key, OLD.space, OLD.deleted_at) IS DISTINCT FROM (NEW.key, NEW.space, NEW.deleted_at))
    EXECUTE FUNCTION yorozu_context_session_row_changed();
CREATE TRIGGER sessions_context_delete AFTER DELETE ON sessions FOR EACH ROW
    EXECUTE FUNCTION yorozu_context_session_row_changed();

-- One trigger per table and operation: a statement trigger's transition
-- tables are those of its operation.
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('messages', 'yorozu_context_session_changed'),
        ('memories', 'yorozu_context_session_changed'),
        ('fetched_files', 'yorozu_context_session_changed'),
        ('session_note_pages', 'yorozu_context_session_changed'),
        ('knowledge_entries', 'yorozu_context_space_changed'),
        ('note_pages', 'yorozu_context_space_changed'),
        ('member_facts', 'yorozu_context_member_changed')) v(tab, fn)
    LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION %I()', t.tab || '_context_insert', t.tab, t.fn);
        EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION %I()', t.tab || '_context_update', t.tab, t.fn);
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION %I()', t.tab || '_context_delete', t.tab, t.fn);
    END LOOP;
END $$;
