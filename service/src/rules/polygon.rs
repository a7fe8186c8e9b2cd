//! Geofence polygons: RFC 7946 structure, a size limit, and OGC validity (through `geo`).

use asset_alerting_models::GeoJsonPolygon;
use geo::algorithm::validation::{InvalidPolygon, RingRole};
use geo::{Area, Coord, LineString, Validation};

/// Positions in all rings of one polygon together (the spec states it). `geo`'s validity check
/// compares every pair of a ring's segments, so the cost grows with the square of this.
pub const MAX_POSITIONS: usize = 2_000;

/// RFC 7946: every ring closed, at least four positions, positions are [longitude, latitude] in
/// range; at most `MAX_POSITIONS`; then a valid polygon: rings simple, with area, holes inside.
pub fn polygon(p: &GeoJsonPolygon) -> Result<(), String> {
    if p.coordinates.is_empty() {
        return Err("polygon.coordinates: a polygon needs at least one ring".into());
    }
    let positions: usize = p.coordinates.iter().map(Vec::len).sum();
    if positions > MAX_POSITIONS {
        return Err(format!(
            "polygon.coordinates: {positions} positions; a polygon may have at most {MAX_POSITIONS}"
        ));
    }
    for (r, ring) in p.coordinates.iter().enumerate() {
        structure(r, ring)?;
    }
    validity(p)?;
    if asset_alerting_detect::geo::spans_antimeridian(&crate::pipeline::zone_polygon(p)) {
        return Err(
            "polygon.coordinates: the polygon crosses the antimeridian (longitude ±180); \
                    split it in two, as RFC 7946 section 3.1.9 asks"
                .into(),
        );
    }
    Ok(())
}

fn structure(r: usize, ring: &[Vec<f64>]) -> Result<(), String> {
    if ring.len() < 4 {
        return Err(format!(
            "polygon.coordinates[{r}]: a ring needs at least 4 positions (has {})",
            ring.len()
        ));
    }
    for (i, position) in ring.iter().enumerate() {
        let [lon, lat] = position.as_slice() else {
            return Err(format!(
                "polygon.coordinates[{r}][{i}]: a position is [longitude, latitude]"
            ));
        };
        if !(-180.0..=180.0).contains(lon) {
            return Err(format!(
                "polygon.coordinates[{r}][{i}]: longitude {lon} is outside -180..180"
            ));
        }
        if !(-90.0..=90.0).contains(lat) {
            return Err(format!(
                "polygon.coordinates[{r}][{i}]: latitude {lat} is outside -90..90"
            ));
        }
    }
    if ring.first() != ring.last() {
        return Err(format!(
            "polygon.coordinates[{r}]: the ring is not closed (its first and last positions differ)"
        ));
    }
    Ok(())
}

fn line_string(ring: &[Vec<f64>]) -> LineString<f64> {
    LineString::new(ring.iter().map(|p| Coord { x: p[0], y: p[1] }).collect())
}

/// The first defect `geo` finds, named by ring; a ring without area (one point repeated, or
/// collinear positions) is refused too, as it encloses nothing.
fn validity(p: &GeoJsonPolygon) -> Result<(), String> {
    let mut rings = p.coordinates.iter().map(|ring| line_string(ring));
    let exterior = rings.next().expect("checked: at least one ring");
    let polygon = geo::Polygon::new(exterior, rings.collect());
    polygon
        .check_validation()
        .map_err(|defect| describe(&defect))?;
    for (r, ring) in p.coordinates.iter().enumerate() {
        let alone = geo::Polygon::new(line_string(ring), Vec::new());
        if alone.unsigned_area() == 0.0 {
            return Err(format!(
                "{}: the ring has no area (its positions are all one point or on one line)",
                ring_name(r)
            ));
        }
    }
    Ok(())
}

fn ring_name(r: usize) -> String {
    if r == 0 {
        "polygon.coordinates[0] (the exterior ring)".to_owned()
    } else {
        format!("polygon.coordinates[{r}] (a hole)")
    }
}

fn index(role: &RingRole) -> usize {
    match role {
        RingRole::Exterior => 0,
        RingRole::Interior(i) => i + 1,
    }
}

fn describe(defect: &InvalidPolygon) -> String {
    match defect {
        InvalidPolygon::TooFewPointsInRing(role) => format!(
            "{}: the ring has no area (it needs at least 3 distinct positions)",
            ring_name(index(role))
        ),
        InvalidPolygon::SelfIntersection(role) => format!(
            "{}: the ring crosses or touches itself (for example a bowtie)",
            ring_name(index(role))
        ),
        InvalidPolygon::NonFiniteCoord(role, at) => format!(
            "polygon.coordinates[{}][{}]: not a finite number",
            index(role),
            at.0
        ),
        InvalidPolygon::InteriorRingNotContainedInExteriorRing(role) => format!(
            "{}: the hole is not inside the exterior ring polygon.coordinates[0]",
            ring_name(index(role))
        ),
        InvalidPolygon::IntersectingRingsOnALine(a, b) => format!(
            "{} and {}: the rings share a segment",
            ring_name(index(a)),
            ring_name(index(b))
        ),
        InvalidPolygon::IntersectingRingsOnAnArea(a, b) => format!(
            "{} and {}: the rings overlap",
            ring_name(index(a)),
            ring_name(index(b))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use asset_alerting_models::GeoJsonPolygonType;

    fn polygon_of(rings: &[&[[f64; 2]]]) -> GeoJsonPolygon {
        GeoJsonPolygon {
            r#type: GeoJsonPolygonType::Polygon,
            coordinates: rings
                .iter()
                .map(|ring| ring.iter().map(|p| p.to_vec()).collect())
                .collect(),
        }
    }

    const SQUARE: &[[f64; 2]] = &[[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0], [0.0, 0.0]];

    #[test]
    fn valid_polygons_pass() {
        assert_eq!(polygon(&polygon_of(&[SQUARE])), Ok(()));
        let hole: &[[f64; 2]] = &[[1.0, 1.0], [2.0, 1.0], [2.0, 2.0], [1.0, 1.0]];
        assert_eq!(polygon(&polygon_of(&[SQUARE, hole])), Ok(()));
    }

    #[test]
    fn each_defect_names_its_ring() {
        let bowtie: &[[f64; 2]] = &[[0.0, 0.0], [4.0, 4.0], [4.0, 0.0], [0.0, 4.0], [0.0, 0.0]];
        let point: &[[f64; 2]] = &[[1.0, 1.0]; 4];
        let line: &[[f64; 2]] = &[[0.0, 0.0], [1.0, 1.0], [3.0, 3.0], [0.0, 0.0]];
        let outside: &[[f64; 2]] = &[[9.0, 9.0], [9.5, 9.0], [9.5, 9.5], [9.0, 9.0]];
        for (rings, expected) in [
            (
                vec![bowtie],
                "coordinates[0] (the exterior ring): the ring crosses",
            ),
            (
                vec![point],
                "coordinates[0] (the exterior ring): the ring has no area",
            ),
            (vec![line], "coordinates[0] (the exterior ring)"),
            (vec![SQUARE, bowtie], "coordinates[1] (a hole)"),
            (
                vec![SQUARE, outside],
                "coordinates[1] (a hole): the hole is not inside",
            ),
        ] {
            let error = polygon(&polygon_of(&rings)).unwrap_err();
            assert!(error.contains(expected), "{expected}: {error}");
        }
    }

    #[test]
    fn positions_are_limited_in_all_rings_together() {
        let edge: Vec<[f64; 2]> = (0..MAX_POSITIONS - 3)
            .map(|i| [i as f64 / 100.0, 0.0])
            .chain([[20.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
            .collect();
        assert_eq!(polygon(&polygon_of(&[&edge])), Ok(()));
        let hole: &[[f64; 2]] = &[[1.0, 0.5], [2.0, 0.5], [2.0, 0.6], [1.0, 0.5]];
        let error = polygon(&polygon_of(&[&edge, hole])).unwrap_err();
        assert!(error.contains("2004 positions"), "{error}");
    }
}
