-- The schema of SQLite's migrations 0001-0004 in PostgreSQL's own types. Text that lists are
-- ordered by is `COLLATE "C"`: byte order, as in SQLite, whatever locale the cluster has.

CREATE TABLE accounts (
    id uuid PRIMARY KEY,
    parent_id uuid REFERENCES accounts (id),
    name text COLLATE "C" NOT NULL,
    friendly_name text,
    culture text,
    technical_email_address text,
    callback_uri text,
    -- argon2 PHC string of the client secret; the secret itself is never stored.
    secret_hash text NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX accounts_parent ON accounts (parent_id, name, id);

CREATE TABLE assets (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id),
    external_id text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL,
    tier integer NOT NULL,
    disabled_events text NOT NULL,
    telemetry_rules text,
    is_deleted boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL
);
CREATE INDEX assets_listing ON assets (account_id, external_id, id) INCLUDE (is_deleted);
-- An externalId is unique among the live assets of an account.
CREATE UNIQUE INDEX assets_live_external_id ON assets (account_id, external_id) WHERE NOT is_deleted;

CREATE TABLE geofences (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id),
    external_id text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL,
    polygon text NOT NULL
);
CREATE UNIQUE INDEX geofences_external_id ON geofences (account_id, external_id);
CREATE INDEX geofences_listing ON geofences (account_id, name, id);

CREATE TABLE alert_rules (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id),
    asset_id uuid NOT NULL REFERENCES assets (id),
    event_type integer NOT NULL,
    position integer NOT NULL,
    -- The rule as the API's JSON (recipient, channel, schedule, geofence lists).
    body text NOT NULL
);
CREATE INDEX alert_rules_listing ON alert_rules (asset_id, event_type, position, id);

CREATE TABLE alert_rule_geofences (
    rule_id uuid NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    geofence_id uuid NOT NULL REFERENCES geofences (id),
    PRIMARY KEY (rule_id, geofence_id)
);
CREATE INDEX alert_rule_geofences_geofence ON alert_rule_geofences (geofence_id);

CREATE TABLE ingestion_tokens (
    -- SHA-256 of the token; the token itself is shown once and never stored.
    token_hash text PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id),
    expires_at timestamptz NOT NULL,
    id uuid NOT NULL UNIQUE,
    issued_by uuid NOT NULL REFERENCES accounts (id),
    created_at timestamptz NOT NULL
);
CREATE INDEX ingestion_tokens_issuer ON ingestion_tokens (account_id, issued_by, expires_at);

CREATE TABLE settings (
    key text PRIMARY KEY,
    value text NOT NULL
);

-- Every accepted telemetry point, once per asset and timestamp (a repeat is a duplicate).
CREATE TABLE telemetry (
    asset_id uuid NOT NULL REFERENCES assets (id),
    ts timestamptz NOT NULL,
    received_at timestamptz NOT NULL,
    -- The readings as a JSON array, in the order SQLite's migration 0003 describes.
    body text NOT NULL,
    PRIMARY KEY (asset_id, ts)
);

-- The detector's state of each asset after its newest processed point.
CREATE TABLE asset_state (
    asset_id uuid PRIMARY KEY REFERENCES assets (id),
    last_ts timestamptz,
    state text NOT NULL
);

CREATE TABLE events (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id),
    asset_id uuid NOT NULL REFERENCES assets (id),
    event_type integer NOT NULL,
    occurred_at timestamptz NOT NULL,
    detected_at timestamptz NOT NULL,
    latitude double precision,
    longitude double precision,
    details text NOT NULL,
    notifications_suppressed boolean NOT NULL,
    acknowledged_at timestamptz,
    acknowledged_by text
);
CREATE INDEX events_listing ON events (account_id, occurred_at, id);
CREATE INDEX events_asset ON events (asset_id, occurred_at, id);

-- The outbox, written in the transaction that stores the event.
CREATE TABLE notifications (
    id uuid PRIMARY KEY,
    -- NULL only for digests, which carry several coalesced notifications.
    event_id uuid REFERENCES events (id),
    account_id uuid NOT NULL REFERENCES accounts (id),
    rule_id uuid,
    webhook_account_id uuid REFERENCES accounts (id),
    channel text NOT NULL,
    recipient text NOT NULL,
    target text NOT NULL,
    status text NOT NULL,
    reason text,
    created_at timestamptz NOT NULL,
    due_at timestamptz NOT NULL,
    sent_at timestamptz,
    digest_id uuid REFERENCES notifications (id),
    -- A dispatcher's claim: others leave the row alone until the lease expires.
    lease_until timestamptz,
    attempts bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX notifications_rule ON notifications (event_id, rule_id) WHERE rule_id IS NOT NULL;
CREATE UNIQUE INDEX notifications_webhook ON notifications (event_id, webhook_account_id) WHERE webhook_account_id IS NOT NULL;
CREATE INDEX notifications_due ON notifications (status, due_at);
CREATE INDEX notifications_event ON notifications (event_id, created_at, id);
CREATE INDEX notifications_digest ON notifications (digest_id);
CREATE INDEX notifications_recipient ON notifications (channel, recipient, sent_at);

CREATE TABLE notification_attempts (
    seq bigserial PRIMARY KEY,
    notification_id uuid NOT NULL REFERENCES notifications (id),
    at timestamptz NOT NULL,
    outcome text NOT NULL,
    provider_code text,
    message text
);
CREATE INDEX notification_attempts_notification ON notification_attempts (notification_id, at, seq);
