-- Accounts form a tree; a token of one account may act on it and its descendants.
CREATE TABLE accounts (
    id TEXT PRIMARY KEY NOT NULL,
    parent_id TEXT REFERENCES accounts (id),
    name TEXT NOT NULL,
    friendly_name TEXT,
    culture TEXT,
    technical_email_address TEXT,
    callback_uri TEXT,
    -- argon2 PHC string of the client secret; the secret itself is never stored.
    secret_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX accounts_parent ON accounts (parent_id);

CREATE TABLE assets (
    id TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    external_id TEXT NOT NULL,
    name TEXT NOT NULL,
    tier INTEGER NOT NULL,
    disabled_events TEXT NOT NULL,
    telemetry_rules TEXT,
    is_deleted INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
-- Listing order (externalId, then id) and the externalId filter.
CREATE INDEX assets_listing ON assets (account_id, external_id, id);
-- An externalId is unique among the live assets of an account.
CREATE UNIQUE INDEX assets_live_external_id ON assets (account_id, external_id) WHERE is_deleted = 0;

CREATE TABLE geofences (
    id TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    external_id TEXT NOT NULL,
    name TEXT NOT NULL,
    polygon TEXT NOT NULL
);
CREATE UNIQUE INDEX geofences_external_id ON geofences (account_id, external_id);
CREATE INDEX geofences_listing ON geofences (account_id, name, id);

CREATE TABLE alert_rules (
    id TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    asset_id TEXT NOT NULL REFERENCES assets (id),
    event_type INTEGER NOT NULL,
    position INTEGER NOT NULL,
    -- The rule's remaining fields as the API's JSON (recipient, channel, schedule, geofence lists).
    body TEXT NOT NULL
);
CREATE INDEX alert_rules_listing ON alert_rules (asset_id, event_type, position, id);

-- Which geofences each rule references; deleting a referenced geofence is refused.
CREATE TABLE alert_rule_geofences (
    rule_id TEXT NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    geofence_id TEXT NOT NULL REFERENCES geofences (id),
    PRIMARY KEY (rule_id, geofence_id)
);
CREATE INDEX alert_rule_geofences_geofence ON alert_rule_geofences (geofence_id);

CREATE TABLE ingestion_tokens (
    -- SHA-256 of the token; the token itself is shown once and never stored.
    token_hash TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    expires_at TEXT NOT NULL
);
CREATE INDEX ingestion_tokens_account ON ingestion_tokens (account_id, expires_at);

-- Keys generated on first start (token signing, portal links) so restarts keep tokens valid.
CREATE TABLE settings (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
