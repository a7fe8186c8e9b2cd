//! What trackers speak, decoded into [`Report`]s in the service's units. Pure: no sockets, no
//! clocks, no storage, so that the listeners that own connections (and their limits, timeouts and
//! acknowledgements) stay small, and every byte rule here is tested on its own.
//!
//! - [`teltonika`]: Teltonika's AVL protocol over TCP: the IMEI handshake and AVL data packets in
//!   Codec 8, Codec 8 Extended and Codec 16, checked by their CRC-16/IBM.
//! - [`osmand`]: OsmAnd reports over HTTP, as Traccar's OsmAnd protocol reads them: query
//!   parameters (GET or a form POST), and the JSON body the current Traccar Client app posts.

#![forbid(unsafe_code)]

pub mod osmand;
mod report;
pub mod teltonika;

pub use report::{Report, Signals};
