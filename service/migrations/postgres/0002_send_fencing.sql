-- A claim's token: a dispatcher confirms it before each send and records only under it, so an
-- instance whose lease was taken over neither sends nor overwrites the new holder's record.
ALTER TABLE notifications ADD COLUMN lease_token uuid;
-- When the current holder started sending: an in-flight send counts against the recipient's
-- rate limit before it is recorded, for every instance.
ALTER TABLE notifications ADD COLUMN sending_at timestamptz;
CREATE INDEX notifications_sending ON notifications (channel, recipient, sending_at) WHERE sending_at IS NOT NULL;
