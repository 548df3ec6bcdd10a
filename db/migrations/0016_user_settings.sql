-- A Discord user's own settings, the same in every server and DM. For now
-- their time zone: an IANA name such as 'Asia/Tokyo', checked by the
-- scheduler before it is stored; '' means the server's TIMEZONE.
CREATE TABLE user_settings (
    user_id    text        PRIMARY KEY,
    time_zone  text        NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now()
);
