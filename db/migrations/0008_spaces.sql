-- Spaces: whose memory is whose. A space is one Discord server
-- ('guild:<guild id>'), one user's DMs ('dm:<user id>') or the admin page's
-- web space ('web'). Notes, knowledge, summaries (through their session),
-- tips and model call logs belong to one space; a conversation only sees its
-- own.
CREATE TABLE spaces (
    key        text        PRIMARY KEY CHECK (key = 'web' OR key ~ '^(guild|dm):[^/\\:]+$'),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Rows with no origin go to the only server's space when there is one, else
-- to the web space.
CREATE TEMP TABLE migration_default_space ON COMMIT DROP AS
SELECT CASE WHEN count(DISTINCT guild_id) = 1 THEN 'guild:' || min(guild_id) ELSE 'web' END AS space
FROM (SELECT guild_id FROM sessions WHERE guild_id <> ''
      UNION SELECT guild_id FROM reminders WHERE guild_id <> '') g;

-- A session belongs to its server, its DM user (the first user who wrote in
-- it), or the default space.
ALTER TABLE sessions ADD COLUMN space text NOT NULL DEFAULT '';
UPDATE sessions s SET space = COALESCE(
    CASE WHEN s.guild_id <> '' THEN 'guild:' || s.guild_id END,
    CASE WHEN s.key LIKE 'discord:dm:%' THEN
        (SELECT 'dm:' || m.author_id FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.author_id <> '' ORDER BY m.id LIMIT 1) END,
    (SELECT space FROM migration_default_space));
ALTER TABLE sessions ALTER COLUMN space DROP DEFAULT;
CREATE INDEX sessions_space_idx ON sessions (space);

-- A page belongs to the space of the conversations that linked it when they
-- agree, else to the default space; links from other spaces are dropped.
ALTER TABLE note_pages ADD COLUMN space text;
UPDATE note_pages p SET space = COALESCE(
    (SELECT min(s.space) FROM session_note_pages l JOIN sessions s ON s.id = l.session_id
     WHERE l.page_id = p.id HAVING count(DISTINCT s.space) = 1),
    (SELECT space FROM migration_default_space));
ALTER TABLE note_pages ALTER COLUMN space SET NOT NULL;
DELETE FROM session_note_pages l USING sessions s, note_pages p
WHERE s.id = l.session_id AND p.id = l.page_id AND s.space <> p.space;

-- Titles are unique and positions run 0, 1, … within a space.
ALTER TABLE note_pages DROP CONSTRAINT note_pages_title_key;
ALTER TABLE note_pages ADD CONSTRAINT note_pages_space_title_key UNIQUE (space, title);
ALTER TABLE note_pages DROP CONSTRAINT note_pages_position_key;
UPDATE note_pages p SET position = r.pos
FROM (SELECT id, row_number() OVER (PARTITION BY space ORDER BY position, id) - 1 AS pos FROM note_pages) r
WHERE p.id = r.id AND p.position <> r.pos;
ALTER TABLE note_pages ADD CONSTRAINT note_pages_position_key UNIQUE (space, position) DEFERRABLE INITIALLY DEFERRED;

-- Earlier versions of a page, kept when write_note replaces or deletes it
-- (the last 20 per page). No foreign key: a deleted page stays restorable.
CREATE TABLE note_revisions (
    id          bigserial   PRIMARY KEY,
    page_id     bigint      NOT NULL,
    space       text        NOT NULL,
    title       text        NOT NULL,
    section     text        NOT NULL DEFAULT '',
    content     text        NOT NULL,
    action      text        NOT NULL CHECK (action IN ('replace', 'delete', 'restore')),
    changed_by  text        NOT NULL DEFAULT '',  -- who changed it: a name, "admin", …
    session_key text        NOT NULL DEFAULT '',  -- the conversation that changed it
    created_at  timestamptz NOT NULL DEFAULT now() -- when it was replaced
);
CREATE INDEX note_revisions_page_idx ON note_revisions (page_id, id DESC);

-- Knowledge belongs to the space of the conversation that searched.
ALTER TABLE knowledge_entries ADD COLUMN space text;
UPDATE knowledge_entries e SET space = COALESCE(
    (SELECT s.space FROM sessions s WHERE s.key = e.session_key),
    (SELECT space FROM migration_default_space));
ALTER TABLE knowledge_entries ALTER COLUMN space SET NOT NULL;
DROP INDEX knowledge_entries_created_idx;
CREATE INDEX knowledge_entries_space_created_idx ON knowledge_entries (space, created_at DESC, id DESC);

-- Tips: the space of the channel they went to.
ALTER TABLE tips ADD COLUMN space text;
UPDATE tips SET space = (SELECT space FROM migration_default_space);
ALTER TABLE tips ALTER COLUMN space SET NOT NULL;
DROP INDEX tips_posted_at_idx;
CREATE INDEX tips_space_posted_idx ON tips (space, posted_at DESC, id DESC);

-- Model calls are tagged with the space of the turn ('' for calls outside one).
ALTER TABLE api_logs ADD COLUMN space text NOT NULL DEFAULT '';
UPDATE api_logs SET space = (SELECT space FROM migration_default_space);
CREATE INDEX api_logs_space_created_idx ON api_logs (space, created_at DESC);

INSERT INTO spaces (key)
SELECT space FROM sessions UNION SELECT space FROM note_pages UNION SELECT space FROM knowledge_entries UNION SELECT space FROM tips UNION SELECT 'web'
ON CONFLICT DO NOTHING;
