-- Settings the application keeps for itself, such as the secret that signs
-- continuation tokens (generated once, shared by every process).
CREATE TABLE app_settings (
    key        text        PRIMARY KEY,
    value      bytea       NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
