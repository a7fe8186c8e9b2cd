//! Detector throughput on a realistic stream: 100 assets with every threshold set, three
//! geofences each and the country lookup on, driving, idling and parking across western
//! Europe (borders included), points of all assets interleaved in time.
//!
//! `cargo bench -p asset-alerting-detect --bench detect`; criterion reports points/s as
//! elements/s ("thrpt").

use std::f64::consts::TAU;
use std::hint::black_box;

use asset_alerting_detect::{
    AssetState, Config, Detector, EventType, Point, Polygon, Signals, Thresholds, Zone,
};
use chrono::{DateTime, Duration, TimeZone, Utc};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use uuid::Uuid;

const ASSETS: usize = 100;
const POINTS_PER_ASSET: usize = 3_000;

/// Deterministic xorshift generator: the stream is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.next()
    }
}

struct Asset {
    thresholds: Thresholds,
    zones: Vec<Zone>,
    points: Vec<Point>,
}

#[derive(Clone, Copy)]
enum Phase {
    Parked,
    Idling,
    Driving,
}

fn circle(lat: f64, lon: f64, radius_m: f64, vertices: usize) -> Polygon {
    let dlat = radius_m / 111_195.0;
    let dlon = dlat / lat.to_radians().cos();
    let mut ring: Vec<[f64; 2]> = (0..vertices)
        .map(|i| {
            let a = TAU * i as f64 / vertices as f64;
            [lon + dlon * a.cos(), lat + dlat * a.sin()]
        })
        .collect();
    ring.push(ring[0]);
    Polygon { rings: vec![ring] }
}

/// A "U" about 2 km wide with a hole in its base: concave and holed.
fn yard(lat: f64, lon: f64) -> Polygon {
    let (w, h) = (0.02, 0.012);
    let exterior = [
        [0.0, 0.0],
        [1.0, 0.0],
        [1.0, 1.0],
        [0.7, 1.0],
        [0.7, 0.4],
        [0.3, 0.4],
        [0.3, 1.0],
        [0.0, 1.0],
        [0.0, 0.0],
    ];
    let hole = [[0.1, 0.1], [0.2, 0.1], [0.2, 0.2], [0.1, 0.2], [0.1, 0.1]];
    let place = |ring: &[[f64; 2]]| -> Vec<[f64; 2]> {
        ring.iter()
            .map(|[x, y]| [lon + x * w, lat + y * h])
            .collect()
    };
    Polygon {
        rings: vec![place(&exterior), place(&hole)],
    }
}

fn asset(index: usize, start: DateTime<Utc>) -> Asset {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0x2545_F491));
    let (mut lat, mut lon) = (rng.range(45.0, 53.5), rng.range(-1.0, 16.0));
    let mut heading: f64 = rng.range(0.0, 360.0);
    let zones = vec![
        Zone {
            id: Uuid::from_u128(index as u128 * 10 + 1),
            polygon: circle(lat, lon, 300.0, 16),
        },
        Zone {
            id: Uuid::from_u128(index as u128 * 10 + 2),
            polygon: circle(
                lat + 0.05 * heading.to_radians().cos(),
                lon + 0.07 * heading.to_radians().sin(),
                1_500.0,
                24,
            ),
        },
        Zone {
            id: Uuid::from_u128(index as u128 * 10 + 3),
            polygon: yard(lat + rng.range(-0.1, 0.1), lon + rng.range(-0.1, 0.1)),
        },
    ];
    let thresholds = Thresholds {
        input_voltage_low: Some(11.8),
        battery_voltage_low: Some(3.6),
        battery_percentage_low: Some(20.0),
        speed_limit: Some(100.0),
        fuel_level_low: Some(15.0),
        ad_blue_level_low: Some(10.0),
        temperature_low: Some(2.0),
        temperature_high: Some(8.0),
        pressure_low: Some(700.0),
        pressure_high: Some(950.0),
        engine_speed_limit: Some(3200.0),
    };

    let mut points = Vec::with_capacity(POINTS_PER_ASSET);
    let mut time = start + Duration::seconds(rng.range(0.0, 60.0) as i64);
    let mut phase = Phase::Parked;
    let mut phase_left = rng.range(300.0, 1800.0);
    let (mut speed, mut target_speed) = (0.0_f64, 80.0_f64);
    let (mut fuel, mut ad_blue, mut battery) = (rng.range(20.0, 90.0), 40.0_f64, 95.0_f64);
    let mut clock = 0.0_f64;
    while points.len() < POINTS_PER_ASSET {
        let interval = match phase {
            Phase::Parked => 120.0,
            Phase::Idling => 30.0,
            Phase::Driving => 10.0,
        };
        time += Duration::seconds(interval as i64);
        clock += interval;
        phase_left -= interval;
        if phase_left <= 0.0 {
            (phase, phase_left) = match phase {
                Phase::Parked => (Phase::Idling, rng.range(60.0, 480.0)),
                Phase::Idling => (Phase::Driving, rng.range(900.0, 3600.0)),
                Phase::Driving => (Phase::Parked, rng.range(600.0, 3600.0)),
            };
        }
        let driving = matches!(phase, Phase::Driving);
        if driving {
            if rng.next() < 0.05 {
                target_speed = rng.range(20.0, 130.0);
            }
            speed += (target_speed - speed) * 0.3 + rng.range(-3.0, 3.0);
            speed = speed.max(0.0);
            if rng.next() < 0.02 {
                speed = 0.0; // traffic light
            }
            heading += rng.range(-8.0, 8.0);
            let metres = speed / 3.6 * interval;
            lat += metres * heading.to_radians().cos() / 111_195.0;
            lon += metres * heading.to_radians().sin() / (111_195.0 * lat.to_radians().cos());
            fuel -= 0.002 * interval;
            ad_blue -= 0.0003 * interval;
            battery = (battery + 0.01 * interval).min(100.0);
        } else {
            speed = rng.range(0.0, 1.5);
            battery -= 0.002 * interval;
        }
        if fuel < 8.0 {
            fuel = 90.0;
        }
        if ad_blue < 5.0 {
            ad_blue = 60.0;
        }
        let engine_on = !matches!(phase, Phase::Parked);
        let alarm = match rng.next() {
            r if r < 0.002 => Some(true),
            r if r < 0.02 => Some(false),
            _ => None,
        };
        points.push(Point {
            timestamp: time,
            latitude: Some(lat + rng.range(-0.00003, 0.00003)),
            longitude: Some(lon + rng.range(-0.00003, 0.00003)),
            speed: Some(speed),
            heading: Some(heading.rem_euclid(360.0)),
            altitude: Some(140.0),
            satellites: Some(11),
            ignition: Some(engine_on),
            input_voltage: Some(if engine_on { 13.9 } else { 12.3 } + rng.range(-0.6, 0.3)),
            battery_voltage: Some(3.55 + battery / 200.0),
            battery_percentage: Some(battery),
            fuel_level: Some(fuel + rng.range(-2.0, 2.0)),
            ad_blue_level: Some(ad_blue),
            temperature: Some(5.0 + 4.0 * (clock / 1800.0).sin() + rng.range(-0.5, 0.5)),
            pressure: Some(820.0 + 140.0 * (clock / 2700.0).sin() + rng.range(-5.0, 5.0)),
            engine_speed: Some(if engine_on { 800.0 + speed * 25.0 } else { 0.0 }),
            signals: Signals {
                alarm,
                ..Signals::default()
            },
        });
    }
    Asset {
        thresholds,
        zones,
        points,
    }
}

/// The assets (rules and zones) and the stream of (asset index, point) in arrival order,
/// stored contiguously as a service receives them.
fn fleet() -> (Vec<Asset>, Vec<(usize, Point)>) {
    let start = Utc.with_ymd_and_hms(2025, 6, 2, 6, 0, 0).unwrap();
    let mut assets: Vec<Asset> = (0..ASSETS).map(|i| asset(i, start)).collect();
    let mut stream: Vec<(usize, Point)> = assets
        .iter_mut()
        .enumerate()
        .flat_map(|(a, asset)| {
            std::mem::take(&mut asset.points)
                .into_iter()
                .map(move |p| (a, p))
        })
        .collect();
    stream.sort_by_key(|(a, point)| (point.timestamp, *a));
    (assets, stream)
}

/// One pass from fresh states; the number of events of each type (indexed by code).
fn run(detector: &Detector, assets: &[Asset], stream: &[(usize, Point)]) -> [usize; 28] {
    let mut states = vec![AssetState::default(); assets.len()];
    let mut counts = [0; 28];
    for (a, point) in stream {
        let asset = &assets[*a];
        for event in detector.process(&mut states[*a], &asset.thresholds, &asset.zones, point) {
            counts[event.event_type.code() as usize] += 1;
        }
    }
    counts
}

fn bench(c: &mut Criterion) {
    let (assets, stream) = fleet();
    let mut group = c.benchmark_group("detect");
    group.throughput(Throughput::Elements(stream.len() as u64));
    group.sample_size(20);
    for (name, country_lookup) in [("fleet", true), ("fleet_without_country", false)] {
        let detector = Detector::new(Config {
            country_lookup,
            ..Config::default()
        });
        let counts = run(&detector, &assets, &stream);
        let by_type: Vec<String> = EventType::ALL
            .iter()
            .map(|t| format!("{} {}", t.name(), counts[t.code() as usize]))
            .collect();
        println!(
            "{name}: {} points, {} events per pass: {}",
            stream.len(),
            counts.iter().sum::<usize>(),
            by_type.join(", ")
        );
        group.bench_function(name, |b| {
            b.iter(|| run(black_box(&detector), black_box(&assets), black_box(&stream)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
