//! The portal's map: country borders, geofences and asset positions drawn as inline SVG. It
//! needs no tiles, scripts or fonts from elsewhere, so it works offline and under the page's
//! strict CSP; the borders are data compiled into the service (`borders.rs`).

use super::borders::countries_within;
use crate::web::escape;
use asset_alerting_models::{Geofence, Position};
use std::fmt::Write;

/// Drawing width in SVG user units; the height follows the shape of the area.
const WIDTH: f64 = 960.0;
/// Share of the extent left free on each side, so markers and labels at the edge stay whole.
const MARGIN: f64 = 0.08;
/// Smallest extent drawn, in degrees (about 1 km), so a lone position still gets surroundings.
const MIN_EXTENT: f64 = 0.01;
/// Height over width is kept within this range, so a row of assets does not become a needle.
const MIN_ASPECT: f64 = 0.4;
const MAX_ASPECT: f64 = 0.75;
/// Colours of the sea (the background), of land, and of country borders and coasts.
pub const SEA: &str = "#dcebf5";
pub const LAND: &str = "#f4f1e8";
pub const BORDER: &str = "#8a6d3b";
/// Kilometres per degree of latitude (mean Earth radius).
const KM_PER_DEGREE: f64 = 111.195;

/// An asset drawn on the map.
pub struct Marker<'a> {
    pub label: &'a str,
    pub position: &'a Position,
    /// Drawn in the alert colour: a condition of the asset (an alarm, a low battery...) is open.
    pub alerting: bool,
}

/// Equirectangular projection fitted to a bounding box: longitude is scaled by the cosine of the
/// box's mean latitude, so shapes keep their proportions near that latitude.
#[derive(Debug)]
struct Projection {
    cos_lat: f64,
    /// Projected coordinates (degrees) of the drawing's top-left corner.
    left: f64,
    top: f64,
    /// SVG units per projected degree.
    scale: f64,
    height: f64,
}

impl Projection {
    /// Fits the (longitude, latitude) points; `None` when there is no finite point.
    fn fit(points: impl Iterator<Item = (f64, f64)>) -> Option<Projection> {
        let mut bounds: Option<[f64; 4]> = None;
        for (lon, lat) in points.filter(|(lon, lat)| lon.is_finite() && lat.is_finite()) {
            let [w, e, s, n] = bounds.get_or_insert([lon, lon, lat, lat]);
            (*w, *e, *s, *n) = (w.min(lon), e.max(lon), s.min(lat), n.max(lat));
        }
        let [west, east, south, north] = bounds?;
        // Clamped so boxes reaching a pole do not collapse to zero width.
        let cos_lat = ((south + north) / 2.0).to_radians().cos().max(0.05);
        let mut width = ((east - west) * cos_lat).max(MIN_EXTENT);
        let mut height = (north - south).max(MIN_EXTENT);
        width = width.max(height / MAX_ASPECT);
        height = height.max(width * MIN_ASPECT);
        let (center_x, center_y) = ((west + east) / 2.0 * cos_lat, (south + north) / 2.0);
        let (width, height) = (width * (1.0 + 2.0 * MARGIN), height * (1.0 + 2.0 * MARGIN));
        let scale = WIDTH / width;
        Some(Projection {
            cos_lat,
            left: center_x - width / 2.0,
            top: center_y + height / 2.0,
            scale,
            height: height * scale,
        })
    }

    fn xy(&self, lon: f64, lat: f64) -> (f64, f64) {
        (
            (lon * self.cos_lat - self.left) * self.scale,
            (self.top - lat) * self.scale,
        )
    }

    /// The area drawn, as `[west, south, east, north]` in degrees.
    fn area(&self) -> [f64; 4] {
        let (right, bottom) = (
            self.left + WIDTH / self.scale,
            self.top - self.height / self.scale,
        );
        [
            self.left / self.cos_lat,
            bottom,
            right / self.cos_lat,
            self.top,
        ]
    }

    fn width_km(&self) -> f64 {
        WIDTH / self.scale * KM_PER_DEGREE
    }
}

/// The (longitude, latitude) pairs of a GeoJSON ring, skipping malformed positions.
fn ring_points(ring: &[Vec<f64>]) -> impl Iterator<Item = (f64, f64)> + '_ {
    ring.iter().filter_map(|p| match p.as_slice() {
        [lon, lat, ..] => Some((*lon, *lat)),
        _ => None,
    })
}

/// Path data with one closed subpath per ring; with fill-rule evenodd the holes stay empty.
fn path_data(projection: &Projection, rings: &[Vec<Vec<f64>>]) -> String {
    subpaths(projection, rings.iter().map(|r| ring_points(r)))
}

/// One closed subpath per ring of (longitude, latitude) pairs.
fn subpaths<R: Iterator<Item = (f64, f64)>>(
    projection: &Projection,
    rings: impl Iterator<Item = R>,
) -> String {
    let mut d = String::new();
    for ring in rings {
        let mut subpath = String::new();
        for (i, (lon, lat)) in ring.enumerate() {
            let (x, y) = projection.xy(lon, lat);
            let _ = write!(subpath, "{}{x:.1},{y:.1} ", if i == 0 { "M" } else { "L" });
        }
        if !subpath.is_empty() {
            d.push_str(&subpath);
            d.push_str("Z ");
        }
    }
    d.trim_end().to_owned()
}

/// Where a geofence's name goes: the middle of its outer ring's bounding box.
fn label_point(projection: &Projection, rings: &[Vec<Vec<f64>>]) -> Option<(f64, f64)> {
    let outer = rings.first()?;
    let (mut w, mut e, mut s, mut n) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (lon, lat) in ring_points(outer) {
        (w, e, s, n) = (w.min(lon), e.max(lon), s.min(lat), n.max(lat));
    }
    (w <= e).then(|| projection.xy((w + e) / 2.0, (s + n) / 2.0))
}

/// The map, or a note when there is nothing to draw.
pub fn svg_map(geofences: &[Geofence], markers: &[Marker]) -> String {
    let zone_points = geofences
        .iter()
        .flat_map(|g| g.polygon.coordinates.iter().flat_map(|r| ring_points(r)));
    let marker_points = markers
        .iter()
        .map(|m| (m.position.longitude, m.position.latitude));
    let Some(projection) = Projection::fit(zone_points.chain(marker_points)) else {
        return "<p class=\"note\">Nothing to draw yet: no asset on this page has reported a \
                position, and the account has no geofences.</p>\n"
            .to_owned();
    };
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\" viewBox=\"0 0 {WIDTH} {:.0}\" \
         role=\"img\" aria-label=\"Map of the geofences and asset positions\" \
         font-family=\"sans-serif\" font-size=\"14\">\
         <rect width=\"100%\" height=\"100%\" fill=\"{SEA}\"/>\n",
        projection.height
    );
    // The countries first, behind everything else; their borders keep one width on screen
    // however far the map is zoomed in.
    svg.push_str(&format!(
        "<g class=\"countries\" fill=\"{LAND}\" stroke=\"{BORDER}\" stroke-width=\"1.5\" \
         stroke-linejoin=\"round\">\n"
    ));
    for country in countries_within(projection.area()) {
        let d = subpaths(&projection, country.rings.iter().map(|r| r.iter().copied()));
        let _ = writeln!(
            svg,
            "<path d=\"{d}\" vector-effect=\"non-scaling-stroke\"><title>{}</title></path>",
            escape(&country.name)
        );
    }
    svg.push_str("</g>\n");
    for g in geofences {
        let name = escape(&g.name);
        let _ = writeln!(
            svg,
            "<path class=\"geofence\" d=\"{}\" fill-rule=\"evenodd\" fill=\"#2f6db5\" \
             fill-opacity=\"0.18\" stroke=\"#2f6db5\" stroke-width=\"2\"><title>{name}</title></path>",
            path_data(&projection, &g.polygon.coordinates)
        );
        if let Some((x, y)) = label_point(&projection, &g.polygon.coordinates) {
            let _ = writeln!(
                svg,
                "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"middle\" fill=\"#1d4a80\" \
                 font-style=\"italic\">{name}</text>"
            );
        }
    }
    for m in markers {
        let (x, y) = projection.xy(m.position.longitude, m.position.latitude);
        let (class, colour) = if m.alerting {
            ("asset alerting", "#c62828")
        } else {
            ("asset", "#2e7d32")
        };
        let label = escape(m.label);
        // Labels of markers in the right part go to their left, so they are not cut off.
        let (anchor, label_x) = if x > WIDTH * 0.6 {
            ("end", x - 10.0)
        } else {
            ("start", x + 10.0)
        };
        let _ = writeln!(
            svg,
            "<g class=\"{class}\"><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"7\" fill=\"{colour}\" \
             stroke=\"#ffffff\" stroke-width=\"2\"><title>{label}</title></circle>\
             <text x=\"{label_x:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" fill=\"#222222\" \
             stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">{label}</text></g>",
            y + 5.0
        );
    }
    svg.push_str("</svg>\n");
    let _ = writeln!(
        svg,
        "<p class=\"caption\">About {:.1} km across; north is up. Red: a condition such as an \
         alarm is open; green: none is. Country borders: Natural Earth 1:110m, accurate to a few \
         kilometres.</p>",
        projection.width_km()
    );
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use asset_alerting_models::{GeoJsonPolygon, GeoJsonPolygonType};
    use uuid::Uuid;

    fn geofence(name: &str, rings: Vec<Vec<[f64; 2]>>) -> Geofence {
        Geofence {
            id: Uuid::new_v4(),
            account_id: Uuid::new_v4(),
            external_id: name.to_owned(),
            name: name.to_owned(),
            polygon: GeoJsonPolygon {
                r#type: GeoJsonPolygonType::Polygon,
                coordinates: rings
                    .into_iter()
                    .map(|r| r.into_iter().map(|p| p.to_vec()).collect())
                    .collect(),
            },
        }
    }

    fn square(lon: f64, lat: f64, size: f64) -> Vec<[f64; 2]> {
        vec![
            [lon, lat],
            [lon + size, lat],
            [lon + size, lat + size],
            [lon, lat + size],
            [lon, lat],
        ]
    }

    /// The numbers of a path's first subpath, as (x, y) pairs.
    fn first_ring(svg: &str) -> Vec<(f64, f64)> {
        let d = svg
            .split("class=\"geofence\" d=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let ring = d.split('Z').next().unwrap();
        ring.split_whitespace()
            .map(|p| {
                let (x, y) = p.trim_start_matches(['M', 'L']).split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn longitude_shrinks_with_the_cosine_of_the_mean_latitude() {
        // One degree by one degree at 60° north is half as wide as it is tall.
        let svg = svg_map(&[geofence("north", vec![square(10.0, 59.5, 1.0)])], &[]);
        let ring = first_ring(&svg);
        let width = ring[1].0 - ring[0].0;
        let height = ring[0].1 - ring[2].1;
        assert!(
            (width / height - 60f64.to_radians().cos()).abs() < 0.01,
            "{ring:?}"
        );
        // North is up: the northern edge has the smaller y.
        assert!(ring[2].1 < ring[1].1);
    }

    #[test]
    fn the_box_spans_geofences_and_positions_with_a_margin() {
        let position = Position {
            latitude: 52.5,
            longitude: 13.5,
        };
        let zone = geofence("depot", vec![square(13.0, 52.0, 0.1)]);
        let projection = Projection::fit(
            ring_points(&zone.polygon.coordinates[0])
                .chain([(position.longitude, position.latitude)]),
        )
        .unwrap();
        let (x, y) = projection.xy(13.5, 52.5);
        let (x0, y0) = projection.xy(13.0, 52.0);
        let inside = |v: f64, max: f64| v > 0.0 && v < max;
        for (x, y) in [(x, y), (x0, y0)] {
            assert!(
                inside(x, WIDTH) && inside(y, projection.height),
                "{x},{y} {projection:?}"
            );
        }
        // The margin: the extreme points stay MARGIN of the extent from the edges (the longer
        // side, north to south here, sets the scale).
        let expected = projection.height * MARGIN / (1.0 + 2.0 * MARGIN);
        assert!((y - expected).abs() < 0.5, "{y} {expected}");
        assert!((projection.height - y0 - expected).abs() < 0.5);
    }

    #[test]
    fn holes_are_subpaths_under_evenodd() {
        let svg = svg_map(
            &[geofence(
                "yard",
                vec![square(13.0, 52.0, 1.0), square(13.4, 52.4, 0.2)],
            )],
            &[],
        );
        let d = svg
            .split("class=\"geofence\" d=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert_eq!(d.matches('Z').count(), 2, "{d}");
        assert!(svg.contains("fill-rule=\"evenodd\""));
        assert!(svg.contains("<title>yard</title>"));
    }

    #[test]
    fn a_lone_position_is_drawn_without_dividing_by_zero() {
        let position = Position {
            latitude: -33.9,
            longitude: 18.4,
        };
        let svg = svg_map(
            &[],
            &[Marker {
                label: "Van <1>",
                position: &position,
                alerting: true,
            }],
        );
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        // Drawn in the middle of a box of the minimum extent.
        assert!(svg.contains("cx=\"480.0\""), "{svg}");
        assert!(svg.contains("class=\"asset alerting\""));
        assert!(svg.contains("Van &lt;1&gt;") && !svg.contains("Van <1>"));
    }

    #[test]
    fn countries_are_drawn_behind_geofences_and_assets() {
        let position = Position {
            latitude: 52.4,
            longitude: 14.0,
        };
        let svg = svg_map(
            &[geofence("depot", vec![square(13.9, 52.3, 0.05)])],
            &[Marker {
                label: "Truck",
                position: &position,
                alerting: false,
            }],
        );
        let at = |needle: &str| {
            svg.find(needle)
                .unwrap_or_else(|| panic!("{needle}: {svg}"))
        };
        // Near the Oder: Germany and Poland, not countries far away.
        assert!(at("<title>Germany</title>") < at("class=\"geofence\""));
        assert!(at("<title>Poland</title>") < at("class=\"asset\""));
        assert!(!svg.contains("<title>Brazil</title>"));
        assert!(svg.contains(&format!("stroke=\"{BORDER}\"")));
        // A view of the open sea draws no country.
        let sea = Position {
            latitude: -40.0,
            longitude: -30.0,
        };
        let svg = svg_map(
            &[],
            &[Marker {
                label: "Buoy",
                position: &sea,
                alerting: false,
            }],
        );
        assert!(!svg.contains("<path"), "{svg}");
    }

    #[test]
    fn nothing_to_draw_is_said_in_words() {
        let html = svg_map(&[], &[]);
        assert!(!html.contains("<svg"));
        assert!(html.contains("Nothing to draw yet"));
    }
}
