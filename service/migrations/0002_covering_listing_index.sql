-- Listing with OFFSET walks every skipped row: with is_deleted in the index, the skipped rows are
-- judged from the index alone and only the returned page is read from the table.
DROP INDEX assets_listing;
CREATE INDEX assets_listing ON assets (account_id, external_id, id, is_deleted);
