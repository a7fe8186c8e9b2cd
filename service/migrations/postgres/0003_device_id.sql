-- Assets gain the id their tracker reports under (a Teltonika IMEI, an OsmAnd client's id). It is
-- unique among the live assets of the whole service, not per account: a device connects before
-- anyone can say which account it is for.
ALTER TABLE assets ADD COLUMN device_id text COLLATE "C";
CREATE UNIQUE INDEX assets_live_device_id ON assets (device_id) WHERE NOT is_deleted AND device_id IS NOT NULL;
