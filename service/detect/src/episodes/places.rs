//! GeofenceEntered/Exited and CountryBorderCrossed.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::Emitter;
use crate::country;
use crate::geo;
use crate::types::{EventDetails, EventType, Zone};

/// Zones missing from `zones` are forgotten without an event. With a position, each zone is
/// tested: entering (including a zone not seen before that already contains the asset) and
/// leaving raise events. Without a position nothing else changes.
pub(crate) fn detect_geofences(
    zones: &[Zone],
    position: Option<(f64, f64)>,
    inside: &mut BTreeMap<Uuid, DateTime<Utc>>,
    emitter: &mut Emitter,
) {
    debug_assert!(
        zones
            .iter()
            .enumerate()
            .all(|(i, z)| zones[..i].iter().all(|other| other.id != z.id)),
        "zone ids must be unique"
    );
    if !inside.is_empty() {
        inside.retain(|id, _| zones.iter().any(|zone| zone.id == *id));
    }
    let Some((lat, lon)) = position else {
        return;
    };
    for zone in zones {
        let now_inside = geo::contains(&zone.polygon, lon, lat);
        let was_inside = inside.contains_key(&zone.id);
        let event_type = match (was_inside, now_inside) {
            (false, true) => {
                inside.insert(zone.id, emitter.timestamp);
                EventType::GeofenceEntered
            }
            (true, false) => {
                inside.remove(&zone.id);
                EventType::GeofenceExited
            }
            _ => continue,
        };
        let details = EventDetails {
            geofence_id: Some(zone.id),
            ..EventDetails::default()
        };
        emitter.emit_now(event_type, details);
    }
}

/// CountryBorderCrossed when the country differs from the last known one. The first known
/// country only sets the state; a position in no country (at sea) changes nothing, so the
/// next country is compared with the last one seen.
pub(crate) fn detect_country(
    position: Option<(f64, f64)>,
    known: &mut Option<String>,
    emitter: &mut Emitter,
) {
    let Some(code) = position.and_then(|(lat, lon)| country::country_at(lat, lon)) else {
        return;
    };
    match known {
        Some(previous) if previous == code => {}
        Some(previous) => {
            let details = EventDetails {
                from_country: Some(std::mem::replace(previous, code.to_owned())),
                to_country: Some(code.to_owned()),
                ..EventDetails::default()
            };
            emitter.emit_now(EventType::CountryBorderCrossed, details);
        }
        None => *known = Some(code.to_owned()),
    }
}
