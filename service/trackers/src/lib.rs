//! What trackers speak, decoded into [`Report`]s in the service's units and served. The decoders
//! are pure (no sockets, clocks or storage), so every byte rule is tested on its own; the
//! listeners own connections, their limits, timeouts and acknowledgements, and hand reports to an
//! [`Ingest`], the service's pipeline.
//!
//! - [`teltonika`]: Teltonika's AVL protocol over TCP: the IMEI handshake and AVL data packets in
//!   Codec 8, Codec 8 Extended and Codec 16, checked by their CRC-16/IBM, and the listener.
//! - [`osmand`]: OsmAnd reports over HTTP, as Traccar's OsmAnd protocol reads them: query
//!   parameters (GET or a form POST), and the JSON body the current Traccar Client app posts; and
//!   the endpoint.

#![forbid(unsafe_code)]

mod failures;
mod ingest;
pub mod osmand;
mod report;
pub mod teltonika;

pub use ingest::{Ingest, Rejection, Stored};
pub use report::{Report, Signals};
