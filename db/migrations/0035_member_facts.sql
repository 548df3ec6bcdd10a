-- Member facts (/profile): what a member asked yorozu to keep about
-- themselves, per space ('guild:<id>', or 'dm:<user id>' for their DMs).
-- They go into that member's turns. The limits (30 facts of 200 characters
-- per member and space) are the application's; the check keeps a bug from
-- storing a page.
CREATE TABLE member_facts (
    id         bigserial   PRIMARY KEY,
    space      text        NOT NULL,
    user_id    text        NOT NULL,
    user_name  text        NOT NULL DEFAULT '',
    content    text        NOT NULL CHECK (char_length(content) BETWEEN 1 AND 200),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX member_facts_member_idx ON member_facts (space, user_id, id);

-- Offers: what the model proposes on a member's behalf and only that member
-- may accept (a fact to keep, a poll, a server event), shown under the
-- answer with buttons. Nothing is done before the press; decided_at is set
-- by the one press that counts, so pressing twice acts once.
CREATE TABLE offers (
    id          bigserial   PRIMARY KEY,
    kind        text        NOT NULL,
    space       text        NOT NULL,
    user_id     text        NOT NULL,
    guild_id    text        NOT NULL DEFAULT '',
    channel_id  text        NOT NULL DEFAULT '',
    payload     jsonb       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    decided_at  timestamptz,
    accepted    boolean     NOT NULL DEFAULT false
);
CREATE INDEX offers_created_idx ON offers (created_at);
