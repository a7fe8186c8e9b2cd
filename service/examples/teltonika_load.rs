//! Load generator for the Teltonika listener, run by `service/bench/teltonika.sh` against a
//! running service on 127.0.0.1. It creates `--devices` assets with device ids, connects one
//! simulated device for each (IMEI handshake), measures the service's resident memory with all of
//! them connected and idle, then for `--seconds` every device sends AVL packets of `--records`
//! records (Codec 8 Extended) and waits for each acknowledgement, one packet every
//! `--interval-ms` per device, the devices' phases spread over the period (0: the next packet as
//! soon as the last is acknowledged, i.e. saturation). Reports records/s and the acknowledgement
//! latency. Bounded in time and count; it connects only to the addresses given (loopback).

use asset_alerting_client::Client;
use asset_alerting_client::models::AssetInput;
use asset_alerting_client::models::AssetTier;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Barrier;
use tracker_simulator::teltonika::{Codec, Device, Io, Record, packet};

/// The load: what to connect to and how hard to send.
#[derive(clap::Parser)]
struct Args {
    /// The service's API, to create the assets.
    #[arg(long, default_value = "http://127.0.0.1:18284")]
    url: String,
    /// The service's Teltonika listener.
    #[arg(long, default_value = "127.0.0.1:18285")]
    teltonika: String,
    #[arg(long)]
    root: uuid::Uuid,
    #[arg(long)]
    secret: String,
    #[arg(long, default_value_t = 1000)]
    devices: usize,
    /// Records per packet.
    #[arg(long, default_value_t = 10)]
    records: u64,
    #[arg(long, default_value_t = 15)]
    seconds: u64,
    /// A device sends a packet every this many milliseconds, the devices spread over the period
    /// (0: each sends its next packet as soon as the last is acknowledged).
    #[arg(long, default_value_t = 0)]
    interval_ms: u64,
    /// The service's process id, to read its memory (0: not measured).
    #[arg(long, default_value_t = 0)]
    pid: u32,
}

/// Resident memory of `pid` in KiB (VmRSS).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// Record `n` of a device: a truck driving east at 50 km/h, ignition on, 24 V.
fn record(start_ms: u64, n: u64) -> Record {
    Record::at(
        start_ms + n * 1000,
        52.5,
        13.4 + (n % 1000) as f64 * 0.0001,
        50,
    )
    .with(239, Io::U8(1))
    .with(66, Io::U16(24_000))
}

/// One device: handshake, wait for the others, then packets until `until`; the latency of each
/// acknowledgement in microseconds, and the records acknowledged.
async fn device(
    address: String,
    index: usize,
    imei: String,
    a: Arc<Args>,
    ready: Arc<Barrier>,
    go: Arc<Barrier>,
    start_ms: u64,
) -> (Vec<u32>, u64) {
    let mut device = Device::connect(&address).await.expect("connect");
    assert!(
        device.handshake(&imei).await.expect("handshake"),
        "{imei} refused"
    );
    ready.wait().await;
    go.wait().await;
    let until = Instant::now() + Duration::from_secs(a.seconds);
    // Devices report on their own clocks: with a pause, each starts at its own point of it,
    // not all in the same millisecond.
    let period = Duration::from_millis(a.interval_ms);
    let phase = a.interval_ms * index as u64 / a.devices as u64;
    let mut next = tokio::time::Instant::now() + Duration::from_millis(phase);
    let (mut latencies, mut acknowledged, mut n) = (Vec::new(), 0, 0);
    tokio::time::sleep_until(next).await;
    while Instant::now() < until {
        let records: Vec<Record> = (0..a.records).map(|i| record(start_ms, n + i)).collect();
        let bytes = packet(Codec::EightExtended, &records);
        let sent = Instant::now();
        match device.send(&bytes, Duration::from_secs(30)).await {
            Ok(Some(count)) => {
                latencies.push(sent.elapsed().as_micros() as u32);
                acknowledged += u64::from(count);
            }
            other => panic!("{imei}: no acknowledgement: {other:?}"),
        }
        n += a.records;
        // One packet per period, whatever the acknowledgement took (0: at once).
        next += period;
        tokio::time::sleep_until(next).await;
    }
    (latencies, acknowledged)
}

#[tokio::main]
async fn main() {
    let a = Arc::new(<Args as clap::Parser>::parse());
    let client = Client::builder(&a.url)
        .client_credentials(a.root.to_string(), a.secret.clone())
        .build()
        .unwrap();
    let mut imeis = Vec::with_capacity(a.devices);
    for d in 0..a.devices {
        let imei = format!("35{d:013}");
        let input = AssetInput {
            id: None,
            account_id: None,
            is_deleted: None,
            external_id: format!("tracker-{d:05}"),
            device_id: Some(imei.clone()),
            name: format!("Tracked truck {d}"),
            tier: AssetTier::Basic,
            disabled_events: None,
            telemetry_rules: None,
        };
        client.create_asset(a.root, input).send().await.unwrap();
        imeis.push(imei);
    }
    let rss_before = rss_kib(a.pid);
    let ready = Arc::new(Barrier::new(a.devices + 1));
    let go = Arc::new(Barrier::new(a.devices + 1));
    let start_ms = (chrono::Utc::now() - chrono::Duration::days(3)).timestamp_millis() as u64;
    let tasks: Vec<_> = imeis
        .into_iter()
        .enumerate()
        .map(|(index, imei)| {
            tokio::spawn(device(
                a.teltonika.clone(),
                index,
                imei,
                a.clone(),
                ready.clone(),
                go.clone(),
                start_ms,
            ))
        })
        .collect();
    ready.wait().await;
    // Every device connected and silent: what the service holds for them.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_idle = rss_kib(a.pid);
    let began = Instant::now();
    go.wait().await;
    let (mut latencies, mut records) = (Vec::new(), 0);
    for task in tasks {
        let (l, r) = task.await.unwrap();
        latencies.extend(l);
        records += r;
    }
    let elapsed = began.elapsed().as_secs_f64();
    let rss_after = rss_kib(a.pid);
    latencies.sort_unstable();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |us| f64::from(*us) / 1000.0)
    };
    println!(
        "| devices | records/packet | pause ms | records/s | packets/s | ack p50 ms | ack p99 ms | ack max ms |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    println!(
        "| {} | {} | {} | {:.0} | {:.0} | {:.1} | {:.1} | {:.1} |",
        a.devices,
        a.records,
        a.interval_ms,
        records as f64 / elapsed,
        latencies.len() as f64 / elapsed,
        at(0.50),
        at(0.99),
        latencies.last().map_or(0.0, |us| f64::from(*us) / 1000.0),
    );
    if let (Some(before), Some(idle), Some(after)) = (rss_before, rss_idle, rss_after) {
        println!(
            "service RSS: {} MiB before connecting, {} MiB with {} idle connections ({:.1} KiB each), {} MiB after the load",
            before / 1024,
            idle / 1024,
            a.devices,
            idle.saturating_sub(before) as f64 / a.devices as f64,
            after / 1024
        );
    }
}
