//! Where the records of both protocols go: the service's ingestion pipeline.

use crate::report::Report;
use std::future::Future;

/// The service's side of a protocol listener.
pub trait Ingest: Send + Sync + 'static {
    /// Whether `device_id` (a Teltonika IMEI, an OsmAnd `id`) is the device id of a known asset.
    fn knows(&self, device_id: &str) -> impl Future<Output = bool> + Send;
    /// Judges a device's reports and stores those it accepts, durably, before it returns (a
    /// report already stored is a duplicate, not an error); the device is answered only after
    /// `Ok`. On `Err` nothing is answered and the device sends them again.
    fn store(
        &self,
        device_id: &str,
        reports: Vec<Report>,
    ) -> impl Future<Output = Result<Stored, String>> + Send;
}

/// What became of a device's reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stored {
    pub accepted: usize,
    pub duplicates: usize,
    /// Reports judged and not stored (too old, in the future, a value out of range).
    pub rejected: Vec<Rejection>,
}

/// Why a report was not stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// A value out of range: the request was wrong, not only late (OsmAnd answers 400).
    pub invalid: bool,
    pub message: String,
}

impl Stored {
    /// All of `n` reports accepted.
    pub fn accepted(n: usize) -> Stored {
        Stored {
            accepted: n,
            ..Stored::default()
        }
    }
}
