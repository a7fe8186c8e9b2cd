-- Live events: every event gets a stream position from one counter, in the transaction that
-- stores it. The counter is one row whose lock is held until that transaction commits, so
-- positions grow in commit order (a sequence would not: a later number can commit first, and a
-- reader that passed it would never see the earlier one).
CREATE TABLE event_stream (
    id integer PRIMARY KEY CHECK (id = 1),
    position bigint NOT NULL
);
ALTER TABLE events ADD COLUMN stream_position bigint;
UPDATE events SET stream_position = numbered.position
FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY detected_at, id) AS position FROM events) numbered
WHERE events.id = numbered.id;
INSERT INTO event_stream (id, position) VALUES (1, (SELECT COUNT(*) FROM events));

CREATE FUNCTION events_stream_position() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE event_stream SET position = position + 1 WHERE id = 1
    RETURNING position INTO NEW.stream_position;
    RETURN NEW;
END;
$$;
CREATE TRIGGER events_stream_position BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION events_stream_position();
CREATE INDEX events_stream ON events (account_id, stream_position);
