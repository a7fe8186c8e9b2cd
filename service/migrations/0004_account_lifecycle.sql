-- Ingestion tokens get an id (to list and revoke them), the account whose caller requested them
-- (the limit of live tokens counts per requesting account) and their issue time.
ALTER TABLE ingestion_tokens ADD COLUMN id TEXT;
ALTER TABLE ingestion_tokens ADD COLUMN issued_by TEXT REFERENCES accounts (id);
ALTER TABLE ingestion_tokens ADD COLUMN created_at TEXT;
-- Tokens issued before this migration: a random version-4 uuid, issued by their own account,
-- an hour before they expire.
UPDATE ingestion_tokens SET
    id = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2)
        || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2)
        || '-' || hex(randomblob(6))),
    issued_by = account_id,
    created_at = strftime('%Y-%m-%dT%H:%M:%S.000000Z', expires_at, '-1 hour')
WHERE id IS NULL;
CREATE UNIQUE INDEX ingestion_tokens_id ON ingestion_tokens (id);
CREATE INDEX ingestion_tokens_issuer ON ingestion_tokens (account_id, issued_by, expires_at);

