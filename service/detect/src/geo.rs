//! Planar point-in-polygon on `[longitude, latitude]` and great-circle distance.
//!
//! Polygons are taken as drawn in the lon/lat plane. A polygon must not cross the antimeridian
//! (RFC 7946 section 3.1.9 asks to split such shapes): an edge from 179° to -179° is read as
//! running the long way round, through 0°. [`spans_antimeridian`] tells the caller to reject
//! such a polygon. Polygons that touch ±180° without crossing it work; -180° and 180° are not
//! the same longitude to this module.

use crate::types::Polygon;

/// A point closer than this to an edge or vertex of any ring, in degrees (about 0.1 mm), is
/// on the boundary, and the boundary belongs to the polygon (holes' boundaries too).
pub const EDGE_TOLERANCE_DEG: f64 = 1e-9;

/// Mean Earth radius (IUGG), in metres.
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Whether the polygon contains the position: inside the exterior ring and not strictly
/// inside a hole. Positions on the boundary (within [`EDGE_TOLERANCE_DEG`]) are inside. A
/// polygon without rings contains nothing.
pub fn contains(polygon: &Polygon, lon: f64, lat: f64) -> bool {
    let Some((exterior, holes)) = polygon.rings.split_first() else {
        return false;
    };
    if !lon.is_finite() || !lat.is_finite() {
        return false;
    }
    match locate(exterior, lon, lat) {
        Location::Outside => false,
        Location::Boundary => true,
        Location::Inside => holes
            .iter()
            .all(|hole| locate(hole, lon, lat) != Location::Inside),
    }
}

/// Haversine distance in metres between two positions given in degrees.
pub fn distance_m(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (phi1, phi2) = (lat1.to_radians(), lat2.to_radians());
    let half_dphi = (phi2 - phi1) / 2.0;
    let half_dlambda = (lon2 - lon1).to_radians() / 2.0;
    let a = half_dphi.sin().powi(2) + phi1.cos() * phi2.cos() * half_dlambda.sin().powi(2);
    2.0 * EARTH_RADIUS_M * a.sqrt().min(1.0).asin()
}

/// Whether some edge spans more than 180° of longitude: the polygon was probably meant to
/// cross the antimeridian, which [`contains`] does not support.
pub fn spans_antimeridian(polygon: &Polygon) -> bool {
    polygon.rings.iter().any(|ring| {
        ring.iter()
            .zip(ring.iter().cycle().skip(1))
            .any(|(a, b)| (a[0] - b[0]).abs() > 180.0)
    })
}

/// `(latitude, longitude)` if both are present, finite and in range, and not exactly (0, 0):
/// trackers without a fix send (0, 0), so it counts as no position.
pub fn usable_position(latitude: Option<f64>, longitude: Option<f64>) -> Option<(f64, f64)> {
    let (lat, lon) = (latitude?, longitude?);
    let in_range = (-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon);
    (in_range && !(lat == 0.0 && lon == 0.0)).then_some((lat, lon))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Location {
    Inside,
    Boundary,
    Outside,
}

/// Even-odd crossing test of one ring, after a boundary check of each edge.
fn locate(ring: &[[f64; 2]], x: f64, y: f64) -> Location {
    let Some(&last) = ring.last() else {
        return Location::Outside;
    };
    let mut inside = false;
    let mut previous = last;
    for &current in ring {
        let ([x1, y1], [x2, y2]) = (previous, current);
        previous = current;
        // Most edges lie wholly above or below the point: neither on it nor crossed by the ray.
        if (y < y1 - EDGE_TOLERANCE_DEG && y < y2 - EDGE_TOLERANCE_DEG)
            || (y > y1 + EDGE_TOLERANCE_DEG && y > y2 + EDGE_TOLERANCE_DEG)
        {
            continue;
        }
        if near_segment(x, y, x1, y1, x2, y2) {
            return Location::Boundary;
        }
        // Half-open in y, so a ray through a vertex counts the vertex once.
        if (y1 > y) != (y2 > y) {
            let x_cross = x1 + (y - y1) * (x2 - x1) / (y2 - y1);
            if x < x_cross {
                inside = !inside;
            }
        }
    }
    if inside {
        Location::Inside
    } else {
        Location::Outside
    }
}

/// Whether the point is within tolerance of the segment; the caller checked the y range.
fn near_segment(x: f64, y: f64, x1: f64, y1: f64, x2: f64, y2: f64) -> bool {
    let tol = EDGE_TOLERANCE_DEG;
    if x < x1.min(x2) - tol || x > x1.max(x2) + tol {
        return false;
    }
    let (dx, dy) = (x2 - x1, y2 - y1);
    let length_sq = dx * dx + dy * dy;
    let t = if length_sq == 0.0 {
        0.0
    } else {
        (((x - x1) * dx + (y - y1) * dy) / length_sq).clamp(0.0, 1.0)
    };
    let (ex, ey) = (x1 + t * dx - x, y1 + t * dy - y);
    ex * ex + ey * ey <= tol * tol
}

#[cfg(test)]
mod tests {
    use super::*;

    fn polygon(rings: &[&[[f64; 2]]]) -> Polygon {
        Polygon {
            rings: rings.iter().map(|r| r.to_vec()).collect(),
        }
    }

    /// A "U": two prongs joined at the bottom; the notch between them is outside.
    fn concave() -> Polygon {
        polygon(&[&[
            [0.0, 0.0],
            [3.0, 0.0],
            [3.0, 3.0],
            [2.0, 3.0],
            [2.0, 1.0],
            [1.0, 1.0],
            [1.0, 3.0],
            [0.0, 3.0],
            [0.0, 0.0],
        ]])
    }

    fn square_with_hole() -> Polygon {
        polygon(&[
            &[[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0], [0.0, 0.0]],
            &[[1.0, 1.0], [3.0, 1.0], [3.0, 3.0], [1.0, 3.0], [1.0, 1.0]],
        ])
    }

    #[test]
    fn concave_polygon() {
        let p = concave();
        assert!(contains(&p, 0.5, 2.5), "left prong");
        assert!(contains(&p, 2.5, 2.5), "right prong");
        assert!(contains(&p, 1.5, 0.5), "base");
        assert!(!contains(&p, 1.5, 2.0), "notch");
        assert!(!contains(&p, 1.5, 3.5), "above the notch");
        assert!(!contains(&p, -0.5, 1.0), "left of it");
        // A ray from inside the notch passes vertices at y = 1 and y = 3.
        assert!(!contains(&p, 1.5, 1.5));
        assert!(
            contains(&p, 0.5, 1.0),
            "ray through the notch's bottom vertices"
        );
    }

    #[test]
    fn hole_is_outside() {
        let p = square_with_hole();
        assert!(contains(&p, 0.5, 0.5));
        assert!(!contains(&p, 2.0, 2.0), "in the hole");
        assert!(contains(&p, 3.5, 2.0), "between hole and exterior");
        assert!(!contains(&p, 5.0, 2.0));
    }

    #[test]
    fn boundary_belongs_to_the_polygon() {
        let p = square_with_hole();
        assert!(contains(&p, 2.0, 0.0), "exterior edge");
        assert!(contains(&p, 0.0, 4.0), "exterior vertex");
        assert!(contains(&p, 4.0, 2.0), "right edge");
        assert!(contains(&p, 2.0, 1.0), "hole edge");
        assert!(contains(&p, 3.0, 3.0), "hole vertex");
        assert!(
            contains(&p, 2.0, 4.0 + EDGE_TOLERANCE_DEG / 2.0),
            "within tolerance"
        );
        assert!(!contains(&p, 2.0, 4.0 + 1e-7), "beyond tolerance");
        assert!(!contains(&p, 2.0, 1.0 + 1e-7), "just inside the hole");
        let diagonal = polygon(&[&[[0.0, 0.0], [10.0, 10.0], [10.0, 0.0]]]);
        assert!(contains(&diagonal, 3.3, 3.3), "on a diagonal edge");
        assert!(!contains(&diagonal, 3.3, 3.3001));
    }

    #[test]
    fn unclosed_ring_and_degenerate_input() {
        let open = polygon(&[&[[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]]]);
        assert!(contains(&open, 1.0, 1.0));
        assert!(contains(&open, 0.0, 1.0), "closing edge");
        assert!(!contains(&Polygon::default(), 0.0, 0.0));
        assert!(!contains(&polygon(&[&[]]), 0.0, 0.0));
        assert!(!contains(&open, f64::NAN, 1.0));
    }

    #[test]
    fn near_the_antimeridian() {
        // Touches 180° without crossing it: fine.
        let east = polygon(&[&[
            [179.0, -17.0],
            [180.0, -17.0],
            [180.0, -16.0],
            [179.0, -16.0],
            [179.0, -17.0],
        ]]);
        assert!(contains(&east, 179.5, -16.5));
        assert!(contains(&east, 180.0, -16.5), "edge on the antimeridian");
        assert!(!contains(&east, -180.0, -16.5), "-180 is not 180");
        assert!(!spans_antimeridian(&east));
        // Meant to cross from 179° to -179°, but read the long way round.
        let crossing = polygon(&[&[
            [179.0, -17.0],
            [-179.0, -17.0],
            [-179.0, -16.0],
            [179.0, -16.0],
            [179.0, -17.0],
        ]]);
        assert!(spans_antimeridian(&crossing));
        assert!(
            !contains(&crossing, 179.5, -16.5),
            "unsupported: not inside"
        );
        assert!(
            contains(&crossing, 0.0, -16.5),
            "unsupported: the other side"
        );
    }

    #[test]
    fn distances() {
        // Berlin to Paris, about 878 km.
        let d = distance_m(52.5200, 13.4050, 48.8566, 2.3522);
        assert!((d - 877_500.0).abs() < 2_000.0, "{d}");
        // One degree of latitude, about 111.2 km.
        let d = distance_m(0.0, 0.0, 1.0, 0.0);
        assert!((d - 111_195.0).abs() < 5.0, "{d}");
        assert_eq!(distance_m(10.0, 20.0, 10.0, 20.0), 0.0);
        // Across the antimeridian the short way.
        let d = distance_m(0.0, 179.9, 0.0, -179.9);
        assert!((d - 22_239.0).abs() < 5.0, "{d}");
    }

    #[test]
    fn usable_positions() {
        assert_eq!(usable_position(Some(52.0), Some(13.0)), Some((52.0, 13.0)));
        assert_eq!(
            usable_position(Some(0.0), Some(0.0)),
            None,
            "no-fix placeholder"
        );
        assert_eq!(usable_position(Some(0.0), Some(1.0)), Some((0.0, 1.0)));
        assert_eq!(usable_position(Some(91.0), Some(0.5)), None);
        assert_eq!(usable_position(Some(1.0), Some(180.5)), None);
        assert_eq!(usable_position(Some(f64::NAN), Some(1.0)), None);
        assert_eq!(usable_position(None, Some(1.0)), None);
        assert_eq!(usable_position(Some(1.0), None), None);
    }
}
