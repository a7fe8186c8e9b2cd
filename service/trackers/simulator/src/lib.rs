//! Trackers as their documentation describes them, for tests and load generators: what a
//! Teltonika device sends over TCP (the IMEI handshake and AVL packets in Codec 8 and Codec 8
//! Extended, with their CRC) and what an OsmAnd client puts in its URL. Written from Teltonika's
//! "Codec" wiki pages and Traccar's OsmAnd protocol page, not from the service's decoders, so a
//! test that sends these bytes checks the decoders against the protocol, not against themselves.

#![forbid(unsafe_code)]

pub mod osmand;
pub mod teltonika;
