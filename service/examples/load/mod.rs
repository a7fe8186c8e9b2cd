//! What the load generators share: a basic asset, a point that flips the ignition (an event each
//! time), and percentiles of sorted figures.

use asset_alerting_client::models::{AssetInput, AssetTier, TelemetryPoint};
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// A point of `asset` at `at` that only sets the ignition.
#[allow(dead_code)] // ingest_load sends points of its own
pub fn ignition_point(asset: Uuid, at: DateTime<Utc>, ignition: bool) -> TelemetryPoint {
    TelemetryPoint {
        asset_id: Some(asset),
        external_id: None,
        timestamp: at,
        latitude: None,
        longitude: None,
        speed: None,
        altitude: None,
        satellites: None,
        heading: None,
        ignition: Some(ignition),
        input_voltage: None,
        battery_voltage: None,
        battery_percentage: None,
        fuel_level: None,
        ad_blue_level: None,
        temperature: None,
        pressure: None,
        engine_speed: None,
        signals: None,
    }
}

/// The `p` quantile (0..=1) of figures sorted ascending; NaN for none.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// A basic asset without rules, named after its external id.
pub fn asset_input(external_id: String, name: String) -> AssetInput {
    AssetInput {
        id: None,
        account_id: None,
        is_deleted: None,
        external_id,
        device_id: None,
        name,
        tier: AssetTier::Basic,
        disabled_events: None,
        telemetry_rules: None,
    }
}
