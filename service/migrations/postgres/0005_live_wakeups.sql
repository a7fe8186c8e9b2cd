-- Several instances behave as one. The transaction that stores events tells every instance which
-- accounts got new events and up to which stream position (one notification per account, about
-- 60 bytes, far under the 8,000-byte payload limit); one that stores notifications tells the
-- dispatchers. NOTIFY is delivered at commit, so a listener that reads after it is woken finds
-- what was stored.
CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('asset_alerting_events', account_id::text || ' ' || MAX(stream_position))
    FROM stored GROUP BY account_id;
    RETURN NULL;
END;
$$;
CREATE TRIGGER events_notify AFTER INSERT ON events REFERENCING NEW TABLE AS stored
    FOR EACH STATEMENT EXECUTE FUNCTION events_notify();

CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- One per transaction: PostgreSQL folds equal notifications of a transaction into one.
    PERFORM pg_notify('asset_alerting_outbox', '');
    RETURN NULL;
END;
$$;
CREATE TRIGGER outbox_notify AFTER INSERT ON notifications
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();

-- The live event streams open on every instance, so that the per-account limit holds across
-- instances. An instance renews its leases together; those of an instance that died expire.
CREATE TABLE stream_leases (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL,
    instance_id uuid NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX stream_leases_account ON stream_leases (account_id, expires_at);
CREATE INDEX stream_leases_instance ON stream_leases (instance_id);
