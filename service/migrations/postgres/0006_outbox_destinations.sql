-- The outbox by destination, as SQLite's migration 0008: the dispatcher's claim finds the
-- destinations with pending notifications by skipping through this index, and reads only the
-- first few of each destination nobody holds, not the whole backlog (a receiver slower than
-- ingestion can have thousands pending: ranking them all took 17 ms a claim under the ingestion
-- benchmark).
CREATE INDEX notifications_pending ON notifications (channel, recipient, due_at, created_at, lease_until)
    WHERE status = 'pending';
-- The leases held: whether a destination is held, and when the next lease ends.
CREATE INDEX notifications_leased ON notifications (channel, recipient, lease_until, due_at)
    WHERE status = 'pending' AND lease_until IS NOT NULL;
