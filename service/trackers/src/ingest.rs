//! Where the records of both protocols go: the service's ingestion pipeline.

use crate::report::Report;
use std::future::Future;

/// The service's side of a protocol listener.
pub trait Ingest: Send + Sync + 'static {
    /// Whether `device_id` (a Teltonika IMEI, an OsmAnd `id`) is the device id of a known asset.
    fn knows(&self, device_id: &str) -> impl Future<Output = bool> + Send;
    /// Stores a device's reports durably (a report already stored is a duplicate, not an
    /// error); the device is answered only after `Ok`. On `Err` it is not, and sends them again.
    fn store(
        &self,
        device_id: &str,
        reports: Vec<Report>,
    ) -> impl Future<Output = Result<(), String>> + Send;
}
