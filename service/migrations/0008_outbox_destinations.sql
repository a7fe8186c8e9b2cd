-- The outbox by destination, for the dispatcher's claims and its look at the next due time.
-- Pending notifications only (what is sent, skipped or coalesced leaves them): the claim finds
-- the destinations with pending notifications from this index alone, and reads only the first
-- few of each destination that nobody holds, not the whole backlog (a receiver slower than
-- ingestion can have thousands pending).
CREATE INDEX notifications_pending ON notifications (channel, recipient, due_at, created_at, lease_until)
    WHERE status = 'pending';
-- The leases held: whether a destination is held, and when the next lease ends.
CREATE INDEX notifications_leased ON notifications (channel, recipient, lease_until, due_at)
    WHERE status = 'pending' AND lease_until IS NOT NULL;
