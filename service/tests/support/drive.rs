//! The scripted drive of `drive.rs`: a truck leaves its depot in Kehl (DE), speeds, crosses the
//! Rhine into Strasbourg (FR), stops, idles and switches off.

use super::point_of;
use asset_alerting_client::Client;
use asset_alerting_client::models::{
    GeoJsonPolygon, GeoJsonPolygonType, GeofenceInput, TelemetryPoint,
};
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

/// `(seconds after the start, longitude, latitude, speed, ignition)`.
pub const DRIVE: &[(i64, f64, f64, f64, bool)] = &[
    (0, 7.8200, 48.5700, 0.0, false),
    (60, 7.8200, 48.5700, 0.0, true),
    (90, 7.8200, 48.5700, 30.0, true),
    (100, 7.8189, 48.5700, 30.0, true),
    (110, 7.8178, 48.5700, 30.0, true),
    (200, 7.8150, 48.5750, 120.0, true),
    (210, 7.8120, 48.5760, 120.0, true),
    (220, 7.8100, 48.5770, 80.0, true),
    (300, 7.7500, 48.5800, 60.0, true),
    (400, 7.7450, 48.5820, 0.0, true),
    (460, 7.7450, 48.5820, 0.0, true),
    (520, 7.7450, 48.5820, 0.0, true),
    (580, 7.7450, 48.5820, 0.0, true),
    (640, 7.7450, 48.5820, 0.0, true),
    (700, 7.7450, 48.5820, 0.0, true),
    (760, 7.7450, 48.5820, 0.0, false),
];

/// The drive's points for `truck`, starting at `start`.
pub fn points(truck: Uuid, start: DateTime<Utc>) -> Vec<TelemetryPoint> {
    DRIVE
        .iter()
        .map(|&(t, lon, lat, speed, ignition)| TelemetryPoint {
            latitude: Some(lat),
            longitude: Some(lon),
            speed: Some(speed),
            ignition: Some(ignition),
            ..point_of(Some(truck), None, start + Duration::seconds(t))
        })
        .collect()
}

/// A square of about 150 m around the depot position.
pub fn depot() -> GeoJsonPolygon {
    let (lon, lat) = (7.8200, 48.5700);
    let (dx, dy) = (0.0010, 0.0007);
    GeoJsonPolygon {
        r#type: GeoJsonPolygonType::Polygon,
        coordinates: vec![vec![
            vec![lon - dx, lat - dy],
            vec![lon + dx, lat - dy],
            vec![lon + dx, lat + dy],
            vec![lon - dx, lat + dy],
            vec![lon - dx, lat - dy],
        ]],
    }
}

/// Creates the depot geofence in `account`; its id.
pub async fn create_depot(client: &Client, account: Uuid) -> Uuid {
    let input = GeofenceInput {
        id: None,
        account_id: None,
        external_id: "depot".to_owned(),
        name: "Depot Kehl".to_owned(),
        polygon: depot(),
    };
    client
        .create_geofence(account, input)
        .send()
        .await
        .unwrap()
        .id
}
