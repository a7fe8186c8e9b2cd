-- Live events: every event gets a stream position from one counter, in the transaction that
-- stores it. The counter is one row, so its write lock orders the transactions that store
-- events, and positions grow in commit order: a reader that saw position n never sees a
-- smaller one appear later. Rowids could be reused after the newest events are deleted.
CREATE TABLE event_stream (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    position INTEGER NOT NULL
);
ALTER TABLE events ADD COLUMN stream_position INTEGER;
UPDATE events SET stream_position = (
    SELECT COUNT(*) FROM events older
    WHERE older.detected_at < events.detected_at
       OR (older.detected_at = events.detected_at AND older.id <= events.id)
);
INSERT INTO event_stream (id, position) VALUES (1, (SELECT COUNT(*) FROM events));
CREATE TRIGGER events_stream_position AFTER INSERT ON events
BEGIN
    UPDATE event_stream SET position = position + 1 WHERE id = 1;
    UPDATE events SET stream_position = (SELECT position FROM event_stream WHERE id = 1)
    WHERE rowid = NEW.rowid;
END;
CREATE INDEX events_stream ON events (account_id, stream_position);
