-- The knowledge base's version, which every turn compares with the one its
-- cache holds: a counter moved by every statement that changes
-- local_knowledge_docs, so reading it is one row however many files are
-- indexed (it used to be count, max and sum over the whole table).
CREATE TABLE local_docs_version (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version   bigint NOT NULL
);
INSERT INTO local_docs_version (version) VALUES (0);

CREATE FUNCTION bump_local_docs_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE local_docs_version SET version = version + 1;
    RETURN NULL;
END
$$;

CREATE TRIGGER local_knowledge_docs_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON local_knowledge_docs
    FOR EACH STATEMENT EXECUTE FUNCTION bump_local_docs_version();
