-- Every accepted telemetry point, once per asset and timestamp (a repeat is a duplicate).
CREATE TABLE telemetry (
    asset_id TEXT NOT NULL REFERENCES assets (id),
    ts TEXT NOT NULL,
    received_at TEXT NOT NULL,
    -- The point's readings as a JSON array: [[latitude, longitude, speed, heading, ignition],
    -- [inputVoltage, batteryVoltage, batteryPercentage], [fuelLevel, adBlueLevel, temperature,
    -- pressure, engineSpeed], [signals present, signals set]] (null when absent; the signal bits
    -- in the order alarm, tampering, jamming, accident, hardCornering, lockdownViolation,
    -- leftBehind, powerDisconnected).
    body TEXT NOT NULL,
    PRIMARY KEY (asset_id, ts)
) WITHOUT ROWID;

-- The detector's state of each asset after its newest processed point.
CREATE TABLE asset_state (
    asset_id TEXT PRIMARY KEY NOT NULL REFERENCES assets (id),
    last_ts TEXT,
    state TEXT NOT NULL
);

CREATE TABLE events (
    id TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    asset_id TEXT NOT NULL REFERENCES assets (id),
    event_type INTEGER NOT NULL,
    occurred_at TEXT NOT NULL,
    detected_at TEXT NOT NULL,
    latitude REAL,
    longitude REAL,
    details TEXT NOT NULL,
    notifications_suppressed INTEGER NOT NULL,
    acknowledged_at TEXT,
    acknowledged_by TEXT
);
-- Newest-first listing per account, and per asset.
CREATE INDEX events_listing ON events (account_id, occurred_at, id);
CREATE INDEX events_asset ON events (asset_id, occurred_at, id);

-- The outbox: what is owed to whom about which event. Rows are written in the transaction that
-- stores the event, so no notification is lost or doubled by a crash.
CREATE TABLE notifications (
    id TEXT PRIMARY KEY NOT NULL,
    -- NULL only for digests, which carry several coalesced notifications.
    event_id TEXT REFERENCES events (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    rule_id TEXT,
    webhook_account_id TEXT REFERENCES accounts (id),
    channel TEXT NOT NULL,
    recipient TEXT NOT NULL,
    -- Who and how, as they were when the event happened (culture, time zone, interactivity).
    target TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    created_at TEXT NOT NULL,
    due_at TEXT NOT NULL,
    sent_at TEXT,
    digest_id TEXT REFERENCES notifications (id),
    -- A dispatcher's claim: others leave the row alone until the lease expires.
    lease_until TEXT,
    attempts INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX notifications_rule ON notifications (event_id, rule_id) WHERE rule_id IS NOT NULL;
CREATE UNIQUE INDEX notifications_webhook ON notifications (event_id, webhook_account_id) WHERE webhook_account_id IS NOT NULL;
CREATE INDEX notifications_due ON notifications (status, due_at);
CREATE INDEX notifications_event ON notifications (event_id, created_at, id);
-- Rate limiting looks up what one recipient was sent lately.
CREATE INDEX notifications_recipient ON notifications (channel, recipient, sent_at);

CREATE TABLE notification_attempts (
    notification_id TEXT NOT NULL REFERENCES notifications (id),
    at TEXT NOT NULL,
    outcome TEXT NOT NULL,
    provider_code TEXT,
    message TEXT
);
CREATE INDEX notification_attempts_notification ON notification_attempts (notification_id, at);
