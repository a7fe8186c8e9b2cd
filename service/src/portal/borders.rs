//! Country borders for the portal's map: Natural Earth's 1:110m admin-0 countries (public domain),
//! as the `world-atlas` package's TopoJSON (`service/data/countries-110m.json`, 105 KB), compiled
//! into the binary and decoded once, at the first map drawn. Nothing is fetched at run time.
//!
//! TopoJSON keeps each border once, as an arc of delta-encoded integer positions (quantized:
//! `position = integer × scale + translate`); a country's rings list the arcs they follow, a
//! negative index `!i` for arc `i` walked backwards.

use serde::Deserialize;
use std::sync::LazyLock;

/// A country's outline in degrees: its rings of (longitude, latitude), and their bounding box.
pub struct Country {
    pub name: String,
    /// West, south, east, north.
    pub bounds: [f64; 4],
    pub rings: Vec<Vec<(f64, f64)>>,
}

const TOPOLOGY: &str = include_str!("../../data/countries-110m.json");

/// Every country of the data, decoded on first use.
pub fn countries() -> &'static [Country] {
    static COUNTRIES: LazyLock<Vec<Country>> =
        LazyLock::new(|| decode(TOPOLOGY).expect("the shipped country borders decode"));
    &COUNTRIES
}

/// The countries whose bounding box meets the box `[west, south, east, north]`.
pub fn countries_within(area: [f64; 4]) -> impl Iterator<Item = &'static Country> {
    let [west, south, east, north] = area;
    countries().iter().filter(move |c| {
        let [w, s, e, n] = c.bounds;
        w <= east && e >= west && s <= north && n >= south
    })
}

#[derive(Deserialize)]
struct Topology {
    transform: Transform,
    arcs: Vec<Vec<[i64; 2]>>,
    objects: Objects,
}

#[derive(Deserialize)]
struct Transform {
    scale: [f64; 2],
    translate: [f64; 2],
}

#[derive(Deserialize)]
struct Objects {
    countries: Collection,
}

#[derive(Deserialize)]
struct Collection {
    geometries: Vec<Geometry>,
}

#[derive(Deserialize)]
#[serde(tag = "type")]
enum Geometry {
    Polygon {
        arcs: Vec<Vec<i64>>,
        properties: Properties,
    },
    MultiPolygon {
        arcs: Vec<Vec<Vec<i64>>>,
        properties: Properties,
    },
}

#[derive(Deserialize)]
struct Properties {
    name: String,
}

fn decode(text: &str) -> Result<Vec<Country>, String> {
    let topology: Topology = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let Transform { scale, translate } = topology.transform;
    // Arcs to degrees: a running sum of the deltas, then scaled and translated.
    let arcs: Vec<Vec<(f64, f64)>> = topology
        .arcs
        .iter()
        .map(|arc| {
            let (mut x, mut y) = (0, 0);
            arc.iter()
                .map(|[dx, dy]| {
                    (x, y) = (x + dx, y + dy);
                    (
                        x as f64 * scale[0] + translate[0],
                        y as f64 * scale[1] + translate[1],
                    )
                })
                .collect()
        })
        .collect();
    let ring = |indexes: &[i64]| -> Result<Vec<(f64, f64)>, String> {
        let mut points = Vec::new();
        for &index in indexes {
            let (arc, reversed) = if index < 0 {
                (!index, true)
            } else {
                (index, false)
            };
            let arc = usize::try_from(arc)
                .ok()
                .and_then(|i| arcs.get(i))
                .ok_or_else(|| format!("no arc {index}"))?;
            let walked: Box<dyn Iterator<Item = &(f64, f64)>> = if reversed {
                Box::new(arc.iter().rev())
            } else {
                Box::new(arc.iter())
            };
            // Each arc starts where the one before ended.
            points.extend(walked.skip(usize::from(!points.is_empty())));
        }
        Ok(points)
    };
    let mut countries = Vec::new();
    for geometry in topology.objects.countries.geometries {
        let (polygons, properties) = match geometry {
            Geometry::Polygon { arcs, properties } => (vec![arcs], properties),
            Geometry::MultiPolygon { arcs, properties } => (arcs, properties),
        };
        let rings = polygons
            .iter()
            .flatten()
            .map(|r| ring(r))
            .collect::<Result<Vec<_>, _>>()?;
        let mut bounds = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
        for &(lon, lat) in rings.iter().flatten() {
            bounds = [
                bounds[0].min(lon),
                bounds[1].min(lat),
                bounds[2].max(lon),
                bounds[3].max(lat),
            ];
        }
        countries.push(Country {
            name: properties.name,
            bounds,
            rings,
        });
    }
    Ok(countries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn country(name: &str) -> &'static Country {
        countries().iter().find(|c| c.name == name).unwrap()
    }

    /// Ray casting: whether (lon, lat) lies inside an odd number of the country's rings.
    fn contains(country: &Country, (lon, lat): (f64, f64)) -> bool {
        let mut inside = false;
        for ring in &country.rings {
            for pair in ring.windows(2) {
                let ((x1, y1), (x2, y2)) = (pair[0], pair[1]);
                if (y1 > lat) != (y2 > lat) && lon < x1 + (lat - y1) / (y2 - y1) * (x2 - x1) {
                    inside = !inside;
                }
            }
        }
        inside
    }

    #[test]
    fn the_data_decodes_to_the_worlds_countries() {
        assert_eq!(countries().len(), 177);
        let germany = country("Germany");
        let [w, s, e, n] = germany.bounds;
        // Natural Earth 1:110m: Germany spans about 5.9..15.0 °E, 47.3..54.9 °N.
        assert!(
            (5.5..6.5).contains(&w) && (14.5..15.5).contains(&e),
            "{w} {e}"
        );
        assert!(
            (47.0..47.7).contains(&s) && (54.5..55.3).contains(&n),
            "{s} {n}"
        );
        // Rings close: an arc list walks back to where it started.
        for ring in &germany.rings {
            assert_eq!(ring.first(), ring.last());
        }
        // Berlin is in Germany, Warsaw in Poland, and not the other way round.
        let (berlin, warsaw) = ((13.4, 52.5), (21.0, 52.2));
        assert!(contains(germany, berlin) && !contains(germany, warsaw));
        assert!(contains(country("Poland"), warsaw) && !contains(country("Poland"), berlin));
    }

    #[test]
    fn only_countries_near_the_area_are_picked() {
        let names: Vec<&str> = countries_within([13.0, 52.0, 15.0, 53.0])
            .map(|c| c.name.as_str())
            .collect();
        assert!(
            names.contains(&"Germany") && names.contains(&"Poland"),
            "{names:?}"
        );
        assert!(!names.contains(&"Brazil"), "{names:?}");
    }
}
