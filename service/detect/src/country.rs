//! Reverse country lookup on the `country-boundaries` crate's data (ODbL, (c) OpenStreetMap
//! contributors): simplified borders, right for settlements and major roads, oblivious of sea
//! borders (a point at sea may be in no country or in the nearest one).
//!
//! Speed: the data is a raster of 1° x 1° cells. Each cell is classified once, on first use,
//! by the country codes it holds: none (sea: no geometry), one covering it wholly (no
//! geometry), one covering part of it (a coast: one point-in-country test), or several (a
//! border: the full lookup). Every answer is exactly that of the full lookup.

use std::sync::OnceLock;

use country_boundaries::{BOUNDARIES_ODBL_360X180, BoundingBox, CountryBoundaries, LatLon};

/// Raster of the bundled 360x180 data: one cell per degree.
const WIDTH: usize = 360;
const HEIGHT: usize = 180;

/// ISO 3166-1 "exceptionally reserved" codes the data uses for parts of countries
/// (Canary Islands, Clipperton, Diego Garcia, Tristan da Cunha, ...). They are not country
/// codes, so the enclosing country is reported instead.
const RESERVED: [&str; 13] = [
    "AC", "CP", "CQ", "DG", "EA", "EU", "EZ", "FX", "IC", "SU", "TA", "UK", "UN",
];

struct Index {
    boundaries: CountryBoundaries,
    /// What each raster cell holds, computed on first use.
    cells: Vec<OnceLock<Cell>>,
}

/// The country codes present in one raster cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    /// No country: every point answers `None`.
    Empty,
    /// Wholly inside this country and touching no other: every point answers it.
    Whole(&'static str),
    /// Partly this country, partly none (a coast): a point answers it if inside it.
    Single(&'static str),
    /// Several countries: full lookup.
    Mixed,
}

static INDEX: OnceLock<Index> = OnceLock::new();

fn index() -> &'static Index {
    INDEX.get_or_init(|| Index {
        boundaries: CountryBoundaries::from_reader(BOUNDARIES_ODBL_360X180)
            .expect("the bundled country boundaries are valid"),
        cells: (0..WIDTH * HEIGHT).map(|_| OnceLock::new()).collect(),
    })
}

/// Loads the boundaries now (a few milliseconds) rather than on the first lookup.
pub fn preload() {
    index();
}

/// The ISO 3166-1 alpha-2 code of the country containing the position, or `None` (at sea,
/// or an invalid position). Where areas nest (Puerto Rico in the United States, Greenland in
/// Denmark) the smallest area with a country code wins: "PR", "GL".
pub fn country_at(lat: f64, lon: f64) -> Option<&'static str> {
    let position = LatLon::new(lat, lon).ok()?;
    let index = index();
    let cell = cell_of(lat, lon);
    match *index.cells[cell].get_or_init(|| classify(&index.boundaries, cell)) {
        Cell::Empty => None,
        Cell::Whole(code) => Some(code),
        Cell::Single(code) => index.boundaries.is_in(position, code).then_some(code),
        Cell::Mixed => full_lookup(&index.boundaries, position),
    }
}

fn full_lookup(boundaries: &'static CountryBoundaries, position: LatLon) -> Option<&'static str> {
    boundaries
        .ids(position)
        .into_iter()
        .find(|id| is_country_code(id))
}

fn is_country_code(id: &str) -> bool {
    id.len() == 2 && id.bytes().all(|b| b.is_ascii_uppercase()) && !RESERVED.contains(&id)
}

/// The raster cell the crate looks in, with its own arithmetic so both always agree.
fn cell_of(lat: f64, lon: f64) -> usize {
    let lon = normalize_longitude(lon);
    let x = ((WIDTH as f64 * (180.0 + lon) / 360.0).floor() as usize).min(WIDTH - 1);
    let y = ((HEIGHT as f64 * (90.0 - lat) / 180.0).ceil() as usize).saturating_sub(1);
    y * WIDTH + x
}

fn normalize_longitude(lon: f64) -> f64 {
    let lon = lon % 360.0;
    if lon < -180.0 {
        lon + 360.0
    } else if lon >= 180.0 {
        lon - 360.0
    } else {
        lon
    }
}

/// Which country codes the cell holds. Only codes decide the answer, so a cell touched by one
/// code (and any number of subdivisions) needs at most a test against that one country.
fn classify(boundaries: &'static CountryBoundaries, cell: usize) -> Cell {
    let (x, y) = ((cell % WIDTH) as f64, (cell / WIDTH) as f64);
    // Inset so the box stays within this one cell.
    let inset = 1e-6;
    let min_lon = -180.0 + x * 360.0 / WIDTH as f64 + inset;
    let max_lon = -180.0 + (x + 1.0) * 360.0 / WIDTH as f64 - inset;
    let max_lat = 90.0 - y * 180.0 / HEIGHT as f64 - inset;
    let min_lat = 90.0 - (y + 1.0) * 180.0 / HEIGHT as f64 + inset;
    let Ok(bounds) = BoundingBox::new(min_lat, min_lon, max_lat, max_lon) else {
        return Cell::Mixed;
    };
    let mut codes = boundaries
        .intersecting_ids(bounds)
        .into_iter()
        .filter(|id| is_country_code(id));
    match (codes.next(), codes.next()) {
        (None, _) => Cell::Empty,
        (Some(code), None) if boundaries.containing_ids(bounds).contains(code) => Cell::Whole(code),
        (Some(code), None) => Cell::Single(code),
        (Some(_), Some(_)) => Cell::Mixed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn countries_by_position() {
        assert_eq!(country_at(52.52, 13.405), Some("DE"), "Berlin");
        assert_eq!(country_at(48.8566, 2.3522), Some("FR"), "Paris");
        assert_eq!(
            country_at(47.6973, 8.6910),
            Some("DE"),
            "Büsingen, an exclave"
        );
        assert_eq!(country_at(18.4, -66.1), Some("PR"), "Puerto Rico, not US");
        assert_eq!(
            country_at(28.1, -15.4),
            Some("ES"),
            "Canary Islands (IC is reserved)"
        );
        assert_eq!(country_at(33.0, -97.0), Some("US"), "Texas, not US-TX");
        assert_eq!(country_at(45.0, -30.0), None, "Atlantic");
        assert_eq!(country_at(95.0, 0.0), None, "invalid");
    }

    #[test]
    fn cells_match_the_crate_raster() {
        assert_eq!(cell_of(89.5, -179.5), 0);
        assert_eq!(cell_of(90.0, -180.0), 0);
        assert_eq!(cell_of(-90.0, 179.99), WIDTH * HEIGHT - 1);
        assert_eq!(cell_of(50.0, 13.0), cell_of(50.999, 13.999));
        assert_ne!(cell_of(50.0, 13.0), cell_of(49.999, 13.0));
        assert_eq!(cell_of(10.0, 180.0), cell_of(10.0, -180.0));
        assert_eq!(cell_of(10.0, 190.5), cell_of(10.0, -169.5));
    }

    /// The per-cell shortcuts must give the full lookup's answer everywhere: sample a fine
    /// grid over Europe (many borders, enclaves, coasts) and compare.
    #[test]
    fn shortcuts_agree_with_full_lookup() {
        let boundaries = &index().boundaries;
        let mut kinds = [0; 4];
        for i in 0..=400 {
            for j in 0..=250 {
                let lat = 35.0 + f64::from(j) * 0.1 + 0.0123;
                let lon = -10.0 + f64::from(i) * 0.1 + 0.0071;
                let full = full_lookup(boundaries, LatLon::new(lat, lon).unwrap());
                assert_eq!(country_at(lat, lon), full, "at {lat}, {lon}");
                let kind = match index().cells[cell_of(lat, lon)].get() {
                    Some(Cell::Empty) => 0,
                    Some(Cell::Whole(_)) => 1,
                    Some(Cell::Single(_)) => 2,
                    _ => 3,
                };
                kinds[kind] += 1;
            }
        }
        assert!(
            kinds.iter().all(|n| *n > 1000),
            "every kind of cell is exercised: {kinds:?}"
        );
    }
}
